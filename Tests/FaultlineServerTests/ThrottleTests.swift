import FaultlineServer
import Foundation
import Synchronization
import Testing

/// `throttle` in the request phase over real sockets: the flow core asks for the pacing before
/// it opens the flow's upstream connection, so the rate must wait for the connection (a new one
/// or one from the pool) instead of being dropped.
@Suite struct ThrottleTests {
    static let rules = """
        {
          scenario: "pace",
          rules: [
            { name: "slow-up", match: { path: "/upload" }, actions: [{ throttle: 10000 }] },
          ],
        }
        """

    /// 5,000 bytes at 10,000 per second: the first 20 ms slice (200 bytes) goes at once, the
    /// rest takes at least 0.48 s. A lower bound only: the proxy can never be early.
    static let body = String(repeating: "u", count: 5000)
    static let least: Duration = .milliseconds(480)

    private func upload(_ client: BlockingClient, _ harness: ControlHarness) throws -> (
        BlockingClient.Response, Duration
    ) {
        let clock = ContinuousClock()
        var response = BlockingClient.Response()
        let elapsed = try clock.measure {
            client.send(
                "POST \(harness.url("/upload")) HTTP/1.1\r\nHost: 127.0.0.1:\(harness.origin.port)\r\n"
                    + "Content-Length: \(Self.body.utf8.count)\r\n\r\n\(Self.body)")
            response = try client.readResponse(method: "POST")
        }
        return (response, elapsed)
    }

    @Test func aRequestThrottlePacesTheUploadOnANewAndOnAPooledConnection() throws {
        try withControl(rules: Self.rules) { harness in
            let client = try BlockingClient(port: harness.proxyPort)
            let (fresh, first) = try upload(client, harness)
            #expect(fresh.status == 200 && fresh.body == "/upload")
            #expect(first >= Self.least, "a new upstream connection: the upload took \(first)")
            // The same client again: its flow takes the pooled upstream connection.
            let (pooled, second) = try upload(client, harness)
            #expect(pooled.status == 200)
            #expect(second >= Self.least, "a pooled upstream connection: the upload took \(second)")
            #expect(harness.origin.acceptedConnections.load(ordering: .relaxed) == 1)
        }
    }
}
