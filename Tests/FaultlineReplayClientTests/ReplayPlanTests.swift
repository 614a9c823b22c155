import FaultlineCapture
import FaultlineHTTP1
import Testing

@testable import FaultlineReplayClient

@Test func thePlanSendsWhatWentUpstreamInRecordedOrderOnePerConnectionLane() {
    var answeredByARule = CaptureFixture.exchange(flow: 9, connection: 2, at: 10, path: "/v1/held")
    answeredByARule.upstreamRequest = nil
    var copy = CaptureFixture.exchange(flow: 10, connection: nil, at: 12, path: "/jobs/1/complete")
    copy.duplicateOf = 3
    let capture = CaptureFixture.capture([
        CaptureFixture.exchange(flow: 1, connection: 1, at: 0, path: "/a"),
        CaptureFixture.exchange(flow: 2, connection: 2, at: 5, path: "/b"),
        answeredByARule,
        CaptureFixture.exchange(flow: 3, connection: 1, at: 10, path: "/c"),
        copy,
        CaptureFixture.exchange(flow: 4, connection: nil, at: 15, path: "/d"),
        CaptureFixture.exchange(flow: 5, connection: 2, at: 40, answeredAfter: 20, path: "/e"),
    ])
    let plan = ReplayPlan(capture: capture, credentials: CredentialMap(findsPseudonyms: true))
    #expect(plan.steps.map(\.request.url.path) == ["/a", "/b", "/c", "/d", "/e"])
    #expect(plan.steps.map(\.number) == [1, 2, 3, 4, 5])
    // Connection 1 and 2 are lanes; a request without a recorded connection gets one of its own.
    #expect(plan.lanes == [[1, 3], [2, 5], [4]])
    #expect(
        plan.steps.map(\.recordedOffset) == [
            .zero, .milliseconds(5), .milliseconds(10), .milliseconds(15), .milliseconds(40),
        ])
    #expect(plan.recordedSpan == .milliseconds(60) + .microseconds(100))
}

@Test func offsetsScaleWithTheSpeed() {
    #expect(ReplayPlan.scaled(.milliseconds(400), speed: 1) == .milliseconds(400))
    #expect(ReplayPlan.scaled(.milliseconds(400), speed: 2) == .milliseconds(200))
    #expect(ReplayPlan.scaled(.milliseconds(400), speed: 0.5) == .milliseconds(800))
    #expect(ReplayPlan.scaled(.milliseconds(400), speed: 0) == .zero)
}

@Test func offsetsCountFromTheFirstRequestGoingUpstream() {
    let capture = CaptureFixture.capture([
        CaptureFixture.exchange(flow: 1, connection: 1, at: 1000, path: "/a"),
        CaptureFixture.exchange(flow: 2, connection: 1, at: 1250, path: "/b"),
    ])
    let plan = ReplayPlan(capture: capture, credentials: CredentialMap(findsPseudonyms: true))
    #expect(plan.steps.map(\.recordedOffset) == [.zero, .milliseconds(250)])
}

@Test func aRequestWaitsForTheAnswersThatIssueWhatItPresents() {
    let plan = ReplayPlan(capture: CaptureFixture.session, credentials: CredentialMap(findsPseudonyms: true))
    #expect(plan.lanes == [[1, 2, 4, 5], [3]])
    // #2 and #3 present what the login issued (#3 on another connection); #4 the login's
    // refresh token; #5 the refreshed access token.
    #expect(plan.steps.map(\.dependencies) == [[], [1], [1], [1], [4]])
    #expect(
        plan.step(1).issuedCredentials.map(\.value) == [
            "flp.cookie-session.L1.1", "flp.access.L1.1", "flp.refresh.L1.1",
        ])
    #expect(plan.presents("flp.password.none.1"))
    #expect(!plan.presents("flp.password.none.2"))
}

@Test func aSuppliedValueNeedsNoIssuer() {
    let capture = CaptureFixture.capture([
        CaptureFixture.exchange(
            flow: 1, connection: 1, at: 0, path: "/a", responseHeaders: [("Set-Cookie", "s=flp.cookie-s.L1.1")]),
        CaptureFixture.exchange(
            flow: 2, connection: 2, at: 5, path: "/b", headers: [("Cookie", "s=flp.cookie-s.L1.1")]),
    ])
    let supplied = ReplayPlan(
        capture: capture, credentials: CredentialMap(findsPseudonyms: true, supplied: ["flp.cookie-s.L1.1": "v"]))
    #expect(supplied.step(2).dependencies == [])
    let learned = ReplayPlan(capture: capture, credentials: CredentialMap(findsPseudonyms: true))
    #expect(learned.step(2).dependencies == [1])
}

@Test func keptSecretsMakeDependenciesToo() {
    let capture = CaptureFixture.capture(
        [
            CaptureFixture.exchange(
                flow: 1, connection: 1, at: 0, path: "/login", responseBody: #"{"access_token":"at_recorded_1"}"#),
            CaptureFixture.exchange(
                flow: 2, connection: 2, at: 5, path: "/b", headers: [("Authorization", "Bearer at_recorded_1")]),
            CaptureFixture.exchange(
                flow: 3, connection: 3, at: 6, path: "/c", headers: [("Authorization", "Bearer other")]),
        ], secrets: .kept)
    let plan = ReplayPlan(capture: capture, credentials: CredentialMap(findsPseudonyms: false))
    #expect(plan.steps.map(\.dependencies) == [[], [1], []])
}

@Test func credentialChangesKeepTheirRecordedOrderAcrossConnections() {
    func step(_ flow: Int64, _ connection: Int64, at: UInt64, _ path: String, role: String?, cookie: Bool = true)
        -> CapturedExchange
    {
        var exchange = CaptureFixture.exchange(
            flow: flow, connection: connection, at: at, method: role == nil ? "GET" : "POST", path: path,
            headers: cookie ? [("Cookie", "session=flp.cookie-session.L1.1")] : [])
        exchange.role = role ?? "business"
        exchange.lineage = "L1"
        return exchange
    }
    var login = step(1, 1, at: 0, "/oauth/token", role: "login", cookie: false)
    login.response?.headers = [("Set-Cookie", "session=flp.cookie-session.L1.1")]
    var logout = step(5, 1, at: 40, "/logout", role: "logout")
    logout.response?.headers = [("Set-Cookie", "session=; Max-Age=0")]
    let capture = CaptureFixture.capture([
        login,
        step(2, 1, at: 10, "/v1/messages", role: nil),
        step(3, 2, at: 20, "/v1/me", role: nil),  // after #2 ended, on another connection
        step(4, 1, at: 30, "/oauth/token", role: "refresh"),  // after #3 ended
        logout,
        step(6, 2, at: 50, "/v1/me", role: nil),  // after the logout ended
    ])
    let plan = ReplayPlan(capture: capture, credentials: CredentialMap(findsPseudonyms: true))
    // #3 needs only the login's cookie: it may run beside #2, as a second connection does.
    #expect(plan.step(3).dependencies == [1])
    // The refresh waits for #3, which it followed on another connection; #6 for the logout.
    #expect(plan.step(4).dependencies == [1, 2, 3])
    #expect(plan.step(6).dependencies == [1, 4, 5])
    // Requests that overlapped in the recording keep overlapping.
    var overlapping = capture.exchanges
    overlapping[2].received = CaptureFixture.moment(5_000_000)
    overlapping[2].received.seq = overlapping[1].received.seq + 1
    let concurrent = ReplayPlan(
        capture: CaptureFixture.capture(overlapping), credentials: CredentialMap(findsPseudonyms: true))
    #expect(concurrent.step(3).dependencies == [1])
}
