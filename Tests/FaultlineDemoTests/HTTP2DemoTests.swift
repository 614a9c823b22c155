import FaultlineContract
import FaultlineHTTP1
import FaultlinePosix
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineDemo

/// `faultline demo --http2`: the same races with the client speaking HTTP/2 (h2c with prior
/// knowledge, one connection, each request a stream). The checker must name the same clause for
/// each variant as over HTTP/1.1, and the trace must say the requests came as streams of one
/// HTTP/2 connection.
@Suite(.serialized) struct HTTP2DemoTests {
    static let runner = try! DemoRunner(httpVersion: .http2)

    @Test(arguments: DemoCase.mutationTable)
    func eachVariantIsCaughtByTheSameClauseOverHTTP2(_ demoCase: DemoCase) async throws {
        let result = try await Self.runner.run(demoCase)
        let named = result.violated.sorted().map(\.rawValue)
        #expect(
            result.asExpected,
            "\(demoCase.variant) through \(demoCase.scenario.rawValue) over HTTP/2: expected \(demoCase.expected.sorted().map(\.rawValue)), checker named \(named)\n\(ReportFormatter.text(result.report, traceName: "trace"))"
        )
        #expect(result.report.traceProblems.isEmpty, "\(result.report.traceProblems)")

        // Every request came over HTTP/2, as a stream of the one connection the client opened.
        let received = result.trace.events.filter { $0.kind == .requestReceived }
        #expect(!received.isEmpty)
        #expect(received.allSatisfy { $0.string("version") == "HTTP/2" }, "\(received.map { $0.string("version") })")
        #expect(Set(received.compactMap(\.connection)).count == 1, "one connection for the whole case")
        let streams = received.compactMap { $0.int("stream") }
        #expect(streams.count == received.count && Set(streams).count == streams.count, "each request its own stream")
        #expect(streams.allSatisfy { $0 % 2 == 1 }, "client-initiated streams are odd (RFC 9113 §5.1.1)")
    }

    /// A race over HTTP/2 is streams in flight together: in the logout race the 401 of
    /// `/v1/messages` is held until the logout is answered, so the logout's stream starts and
    /// ends while the held stream is still open on the same connection.
    @Test func theLogoutRaceIsTwoStreamsInFlightOnOneConnection() async throws {
        let result = try await Self.runner.run(DemoCase([], .logoutRace, expected: []))
        #expect(result.report.passed, "\(ReportFormatter.text(result.report, traceName: "trace"))")
        let events = result.trace.events
        let messages = try #require(
            events.first { $0.kind == .requestReceived && ($0.string("url") ?? "").hasSuffix("/v1/messages") })
        let logout = try #require(events.first { $0.kind == .requestReceived && $0.string("role") == "logout" })
        let messagesDelivered = try #require(
            events.first { $0.kind == .responseDelivered && $0.flow == messages.flow })
        #expect(messages.connection == logout.connection)
        #expect(messages.int("stream") != logout.int("stream"))
        #expect(
            messages.seq < logout.seq && logout.seq < messagesDelivered.seq,
            "the logout went out while messages was held")
    }

    /// The transport refuses work once closed, without touching the network.
    @Test func aClosedTransportFailsRequests() async throws {
        let transport = try DemoHTTP2Transport(address: SocketAddress(ipAddress: "127.0.0.1", port: 9))
        await transport.close()
        await #expect(throws: DemoHTTPClient.Failure.self) {
            _ = try await transport.exchange(DemoRequest(method: "GET", path: "/", fields: [], body: []))
        }
    }
}
