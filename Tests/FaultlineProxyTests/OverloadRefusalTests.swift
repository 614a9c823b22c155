import FaultlineProxy
import Foundation
import Testing

/// A connection over the limit, by its first bytes: HTTP/1 gets the 503, h2c the close.
@Suite struct OverloadRefusalTests {
    private func decide(_ reads: [String], eof: Bool = false) -> OverloadRefusal.Decision {
        var refusal = OverloadRefusal(limit: 7)
        var decision = OverloadRefusal.Decision.undecided
        for read in reads {
            decision = Array(read.utf8).withUnsafeBytes { refusal.receive($0) }
            if decision != .undecided { return decision }
        }
        return eof ? refusal.receiveEOF() : decision
    }

    @Test func anHTTP1RequestGetsThe503() {
        let answer = OverloadRefusal.Decision.answer(response: OverloadRefusal.response(limit: 7))
        #expect(decide(["GET / HTTP/1.1\r\nHost: a\r\n\r\n"]) == answer)
        #expect(decide(["CONNECT example.test:443 HTTP/1.1\r\n\r\n"]) == answer)
        #expect(decide(["P", "RI * HTTP/1.1\r\n"]) == answer, "differs from the preface after 'PRI '")
    }

    @Test func anHTTP2PrefaceIsClosed() {
        #expect(decide(["PRI * HTTP/2.0\r\n", "\r\nSM\r\n\r\n"]) == .close(detail: "http2"))
        #expect(decide(["PRI * HTTP/2"]) == .undecided)
    }

    @Test func theEndOfInputDecides() {
        #expect(decide([], eof: true) == .close(detail: "no-request"))
        #expect(
            decide(["PRI"], eof: true) == .answer(response: OverloadRefusal.response(limit: 7)),
            "a partial request line still gets the 503")
    }

    @Test func the503ClosesAndSaysWhy() {
        let text = String(decoding: OverloadRefusal.response(limit: 7), as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts.count == 2)
        let head = parts[0].components(separatedBy: "\r\n")
        #expect(head.first == "HTTP/1.1 503 Service Unavailable")
        #expect(head.contains("Connection: close"))
        #expect(head.contains("X-Faultline-Error: too-many-connections"))
        #expect(head.contains("Content-Length: \(parts[1].utf8.count)"))
        #expect(parts[1].hasPrefix("faultline: too many connections (the limit is 7"))
    }
}
