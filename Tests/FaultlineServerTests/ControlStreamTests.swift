import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

/// `GET /v1/trace/stream`: live trace lines, and letting go when the client leaves.
@Suite struct ControlStreamTests {
    @Test func theStreamDeliversLinesWrittenAfterSubscribing() throws {
        try withControl { harness in
            try harness.call("POST", "/v1/marks", json: #"{"label": "before"}"#)
            let stream = try TraceStreamClient(address: harness.controlAddress)
            let head = try stream.readHead()
            #expect(head.status == 200)
            #expect(head.headers.first(name: "transfer-encoding") == "chunked")
            #expect(head.headers.first(name: "content-type") == "application/x-ndjson")
            #expect(harness.server.trace.observerCount == 1)

            try harness.call("POST", "/v1/marks", json: #"{"label": "after", "attributes": {"n": "1"}}"#)
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)
            let lines = try stream.readLines { lines in
                lines.contains { $0.contains("\"event\":\"response.delivered\"") }
            }
            let events = try lines.enumerated().map { try TraceReader.parseEvent(line: $1, number: $0 + 1) }
            #expect(events.first?.kind == .mark)
            #expect(events.first?.string("label") == "after")
            #expect(events.first?.string("n") == "1")
            #expect(
                !lines.contains { $0.contains("\"before\"") }, "lines from before the subscription are not replayed")
            #expect(events.contains { $0.kind == .requestReceived })
            // In seq order, without gaps.
            let seqs = events.map(\.seq)
            #expect(seqs == Array(seqs[0]...seqs[0] + UInt64(seqs.count - 1)))
        }
    }

    @Test func theStreamLetsGoWhenTheClientDisconnects() throws {
        try withControl { harness in
            let stream = try TraceStreamClient(address: harness.controlAddress)
            _ = try stream.readHead()
            #expect(harness.server.trace.observerCount == 1)
            stream.close()
            #expect(try harness.eventually { harness.server.trace.observerCount == 0 })
            // The trace goes on without it, and a new subscriber works.
            try harness.call("POST", "/v1/marks", json: #"{"label": "later"}"#)
            let again = try TraceStreamClient(address: harness.controlAddress)
            _ = try again.readHead()
            try harness.call("POST", "/v1/marks", json: #"{"label": "again"}"#)
            #expect(try again.readLines { $0.contains { $0.contains("\"again\"") } }.count == 1)
        }
    }

    @Test func aStreamThatFallsTooFarBehindIsCutOff() throws {
        // A backlog smaller than one line: the first line overflows it.
        let harness = try ControlHarness(streamBacklog: 64)
        defer { harness.stop() }
        let stream = try TraceStreamClient(address: harness.controlAddress)
        _ = try stream.readHead()
        try harness.call("POST", "/v1/marks", json: #"{"label": "too-much-for-a-tiny-backlog"}"#)
        #expect(try stream.readsEOF())
        #expect(try harness.eventually { harness.server.trace.observerCount == 0 })
    }

    @Test func stoppingTheServerEndsTheStream() throws {
        let harness = try ControlHarness()
        let stream = try TraceStreamClient(address: harness.controlAddress)
        _ = try stream.readHead()
        harness.stop()
        #expect(harness.server.trace.observerCount == 0)
        // A complete body (its last chunk), then the close: the client can tell a stop from a cut.
        #expect(try stream.readsEndOfBody())
        #expect(try stream.readsEOF())
    }
}

/// Reads a trace stream over a blocking connection.
final class TraceStreamClient {
    private let connection: BlockingConnection
    private var decoder = HTTP1ResponseDecoder()
    private var pending: [UInt8] = []

    /// Opens `target` (the trace stream, by default with the bearer token) with `headers`.
    init(
        address: SocketAddress, target: String = "/v1/trace/stream",
        headers: String = "Host: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token)\r\n"
    ) throws {
        connection = try BlockingConnection(connectingTo: address, timeout: .seconds(5))
        let request = "GET \(target) HTTP/1.1\r\n\(headers)\r\n"
        try connection.sendAll(Array(request.utf8), deadline: MonotonicInstant.now().advanced(by: .seconds(5)))
        decoder.expectResponse(toMethod: "GET")
    }

    func close() { connection.close() }

    func readHead() throws -> HTTPResponseHead {
        while true {
            if let event = try decoder.nextEvent() {
                if case .head(let head) = event { return head }
                continue
            }
            try fill()
        }
    }

    /// Reads body lines until `done` holds for all lines read so far; 5-second deadline.
    func readLines(until done: ([String]) -> Bool) throws -> [String] {
        var lines: [String] = []
        while !done(lines) {
            while let event = try decoder.nextEvent() {
                guard case .body(let bytes) = event else { continue }
                pending += bytes
            }
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
            if done(lines) { break }
            try fill()
        }
        return lines
    }

    /// True when the body ends properly (the last chunk) within 5 seconds; false at EOF first.
    func readsEndOfBody() throws -> Bool {
        while true {
            while let event = try decoder.nextEvent() {
                if case .end = event { return true }
            }
            let bytes = try connection.read(deadline: MonotonicInstant.now().advanced(by: .seconds(5)))
            if bytes.isEmpty { return false }
            decoder.receive(bytes)
        }
    }

    /// True when the server closes the connection (after whatever it still sends).
    func readsEOF() throws -> Bool {
        let deadline = MonotonicInstant.now().advanced(by: .seconds(5))
        while true {
            if try connection.read(deadline: deadline).isEmpty { return true }
        }
    }

    private func fill() throws {
        let bytes = try connection.read(deadline: MonotonicInstant.now().advanced(by: .seconds(5)))
        if bytes.isEmpty { throw HarnessError("the stream ended") }
        decoder.receive(bytes)
    }
}
