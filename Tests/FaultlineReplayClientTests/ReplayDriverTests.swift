import FaultlineBackend
import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import Testing

@testable import FaultlineReplayClient

/// The driver against the reference backend in this process, over loopback: the sans-I/O
/// pieces through real sockets and threads. (The command line's own tests are in
/// Tests/Integration/test_replay_client.py.)
@Suite(.timeLimit(.minutes(1)))
struct ReplayDriverTests {
    private static func replay(
        _ capture: Capture, against address: SocketAddress, speed: Double = 0, comparesBodies: Bool = true
    )
        -> ReplayReport
    {
        let credentials = CredentialMap(findsPseudonyms: true)
        var options = ReplayOptions(target: UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: address.port))
        options.speed = speed
        options.timeout = .seconds(10)
        options.comparesBodies = comparesBodies
        let session = ReplaySession(
            plan: ReplayPlan(capture: capture, credentials: credentials), options: options, credentials: credentials)
        return ReplayDriver.run(session, capture: "test", addresses: [address], tls: nil) { _ in }
    }

    @Test func aRecordedSessionReplaysAgainstTheReferenceBackend() throws {
        let backend = ReferenceBackend()
        let address = try backend.start()
        defer { backend.stop() }
        let report = Self.replay(CaptureFixture.session, against: address)
        #expect(
            report.results.map(\.outcome) == [.same, .same, .same, .same, .same],
            "\(ReplayReportFormatter.text(report))")
        #expect(report.unresolved == ["flp.password.none.1"])
        let stats = backend.stats()
        #expect(stats.logins == 1 && stats.refreshes == 1 && stats.unauthorized == 0)
    }

    @Test func anUnreachableTargetFailsEveryRequestWithoutHanging() throws {
        let backend = ReferenceBackend()
        let address = try backend.start()
        backend.stop()
        let report = Self.replay(CaptureFixture.session, against: address)
        #expect(report.results.allSatisfy { $0.outcome == .failed })
        #expect(report.results.first?.error?.contains("Connection refused") == true)
        #expect(!report.passed)
    }

    @Test func requestsWaitForTheirRecordedOffsets() throws {
        let backend = ReferenceBackend()
        let address = try backend.start()
        defer { backend.stop() }
        let capture = CaptureFixture.capture([
            CaptureFixture.exchange(flow: 1, connection: 1, at: 0, path: "/v1/nothing-here", status: 404),
            CaptureFixture.exchange(flow: 2, connection: 2, at: 300, path: "/v1/nothing-here", status: 404),
        ])
        let report = Self.replay(capture, against: address, speed: 2, comparesBodies: false)
        #expect(report.results.map(\.outcome) == [.same, .same])
        // Half the recorded 300 ms at speed 2: the second request was not sent before.
        #expect(report.results[1].sentAfter >= .milliseconds(150))
    }
}
