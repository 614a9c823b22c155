import FaultlineCapture
import FaultlineHTTP1

/// Captures written in a test as the loader would read them: exchanges with moments in
/// milliseconds, requests as they went upstream, recorded answers.
enum CaptureFixture {
    static let origin = "http://api.test:8080"

    /// One exchange that went upstream on client connection `connection`, received `at`
    /// milliseconds into the recording and answered `answeredAfter` milliseconds after it was
    /// forwarded.
    static func exchange(
        flow: Int64, connection: Int64?, at milliseconds: UInt64, answeredAfter: UInt64 = 5,
        method: String = "GET", path: String, headers: HTTPHeaders = [("Host", "api.test:8080")], body: String? = nil,
        status: Int? = 200, responseHeaders: HTTPHeaders = [("Content-Type", "application/json")],
        responseBody: String? = nil
    ) -> CapturedExchange {
        // Received at the given time, forwarded 0.1 ms later.
        let received = milliseconds * 1_000_000
        let start = received + 100_000
        let request = CapturedRequest(
            method: method, url: RecordedURL(origin + path)!, httpVersion: "HTTP/1.1", headers: headers,
            body: body.map { CapturedContent(bytes: Array($0.utf8)) })
        var exchange = CapturedExchange(flow: flow, received: moment(received), clientRequest: request)
        exchange.connection = connection
        exchange.forwarded = moment(start)
        exchange.upstreamRequest = request
        if let status {
            exchange.response = CapturedResponse(
                status: status, reason: "", httpVersion: "HTTP/1.1", headers: responseHeaders,
                body: CapturedContent(bytes: Array((responseBody ?? "").utf8)))
            exchange.responseReceived = moment(start + answeredAfter * 1_000_000)
            exchange.delivered = moment(start + answeredAfter * 1_000_000 + 100_000)
            exchange.deliveredStatus = status
        }
        return exchange
    }

    static func capture(_ exchanges: [CapturedExchange], secrets: Capture.Secrets = .pseudonyms) -> Capture {
        Capture(source: "test.jsonl", secrets: secrets, hasBodies: true, exchanges: exchanges, timeline: [])
    }

    static func moment(_ nanoseconds: UInt64) -> Moment {
        Moment(seq: nanoseconds, monoNanoseconds: nanoseconds, wall: "2026-12-02T00:00:00Z")
    }

    /// The login → business → refresh → business story of a pseudonymised capture, on two
    /// client connections: #1 login (conn 1), #2 messages (conn 1, Bearer), #3 me (conn 2,
    /// session cookie), #4 refresh (conn 1), #5 me (conn 1, the refreshed token).
    static var session: Capture {
        capture([
            exchange(
                flow: 1, connection: 1, at: 0, method: "POST", path: "/oauth/token",
                headers: [
                    ("Host", "proxy.test"), ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Content-Length", "60"),
                ],
                body: "grant_type=password&username=alice&password=flp.password.none.1",
                responseHeaders: [
                    ("Content-Type", "application/json"),
                    ("Set-Cookie", "session=flp.cookie-session.L1.1; Path=/; HttpOnly"),
                ],
                responseBody:
                    #"{"access_token":"flp.access.L1.1","refresh_token":"flp.refresh.L1.1","token_type":"Bearer","expires_in":300}"#
            ),
            exchange(
                flow: 2, connection: 1, at: 20, path: "/v1/messages",
                headers: [("Host", "proxy.test"), ("Authorization", "Bearer flp.access.L1.1")],
                responseBody:
                    #"{"account":"alice","messages":[{"id":1,"text":"message 1 for alice"},{"id":2,"text":"message 2 for alice"},{"id":3,"text":"message 3 for alice"}]}"#
            ),
            exchange(
                flow: 3, connection: 2, at: 30, path: "/v1/me",
                headers: [("Host", "proxy.test"), ("Cookie", "session=flp.cookie-session.L1.1")],
                responseBody: #"{"account":"alice","family":1}"#),
            exchange(
                flow: 4, connection: 1, at: 50, method: "POST", path: "/oauth/token",
                headers: [("Host", "proxy.test"), ("Content-Type", "application/x-www-form-urlencoded")],
                body: "grant_type=refresh_token&refresh_token=flp.refresh.L1.1",
                responseBody:
                    #"{"access_token":"flp.access.L1.2","refresh_token":"flp.refresh.L1.2","token_type":"Bearer","expires_in":300}"#
            ),
            exchange(
                flow: 5, connection: 1, at: 80, path: "/v1/me",
                headers: [("Host", "proxy.test"), ("Authorization", "Bearer flp.access.L1.2")],
                responseBody: #"{"account":"alice","family":1}"#),
        ])
    }
}
