import Testing

@testable import FaultlineHTTP1

@Suite struct ResponseRejectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var code: String
        var methods = ["GET"]
        var eof = false
        var testDescription: String { "\(code): \(input.prefix(50).debugDescription)" }
    }

    static let cases: [Case] = [
        Case(input: "HTTP/1.1 200 OK\r\n\r\n", code: "unsolicited-response", methods: []),
        Case(input: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nX", code: "unsolicited-response"),
        Case(input: "HTTP/1.1 20 OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTTP/1.1 abc OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTTP/1.1 099 Low\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTTP/1.1  200 OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTTP/1.1 2000 OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTP/1.1 200 OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "http/1.1 200 OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTTP/1.1 200 O\u{1}K\r\n\r\n", code: "invalid-status-line"),
        Case(input: "\r\nHTTP/1.1 200 OK\r\n\r\n", code: "invalid-status-line"),
        Case(input: "HTTP/2.0 200 OK\r\n\r\n", code: "unsupported-http-version"),
        Case(input: "HTTP/1.1 200 OK\r\nX\r\n\r\n", code: "missing-colon"),
        Case(input: "HTTP/1.1 200 OK\r\nA: 1\r\n b\r\n\r\n", code: "obsolete-line-folding"),
        Case(
            input: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
            code: "content-length-with-transfer-encoding"),
        Case(input: "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", code: "invalid-content-length"),
        Case(input: "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", code: "conflicting-content-length"),
        Case(input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", code: "chunked-repeated"),
        Case(input: "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", code: "transfer-encoding-in-http10"),
        Case(input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n", code: "invalid-chunk-size"),
        Case(input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab", code: "invalid-chunk-terminator"),
        Case(input: "HTTP/1.1 200 OK\r\nContent-Le", code: "incomplete-message", eof: true),
        Case(input: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", code: "incomplete-message", eof: true),
        Case(
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", code: "incomplete-message", eof: true
        ),
        Case(input: "HTTP/1.1 100 Continue\r\n\r\n", code: "incomplete-message", eof: false),
    ]

    @Test(arguments: cases)
    func rejected(_ rejection: Case) throws {
        var input = rejection.input
        var eof = rejection.eof
        if rejection.code == "incomplete-message", !eof {
            // An interim response followed by a truncated final one.
            input += "HTTP/1.1 200"
            eof = true
        }
        let items = decodeAtEverySplit(ResponseItemDecoder(methods: rejection.methods), bytes(input), eof: eof)
        let error = try #require(finalError(items))
        #expect(error.code == rejection.code)
        #expect(error.status == 502)
    }

    @Test func responseErrorsCarry502() throws {
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "GET")
        decoder.receive(bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"))
        decoder.receiveEOF()
        _ = try decoder.nextEvent()
        _ = try decoder.nextEvent()
        #expect(throws: HTTP1Error.incompleteMessage.asResponseError) { try decoder.nextEvent() }
        #expect(HTTP1Error.incompleteMessage.asResponseError.status == 502)
        #expect(HTTP1Error.incompleteMessage.asResponseError.code == HTTP1Error.incompleteMessage.code)
    }

    @Test func longStatusLineIsRefusedEarly() {
        var decoder = HTTP1ResponseDecoder(limits: HTTP1Limits(maxRequestLineLength: 100))
        decoder.expectResponse(toMethod: "GET")
        decoder.receive(bytes("HTTP/1.1 200 " + String(repeating: "x", count: 200)))
        #expect(throws: HTTP1Error.statusLineTooLong) { try decoder.nextEvent() }
    }
}
