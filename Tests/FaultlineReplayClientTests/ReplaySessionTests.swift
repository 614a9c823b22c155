import FaultlineCapture
import FaultlineFlow
import FaultlineHTTP1
import Testing

@testable import FaultlineReplayClient

private func session(comparesBodies: Bool = true, supplied: [String: String] = [:]) -> ReplaySession {
    let credentials = CredentialMap(findsPseudonyms: true, supplied: supplied)
    var options = ReplayOptions(target: UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 9000))
    options.comparesBodies = comparesBodies
    return ReplaySession(
        plan: ReplayPlan(capture: CaptureFixture.session, credentials: credentials), options: options,
        credentials: credentials)
}

private func json(_ status: Int, _ body: String, cookie: String? = nil) -> ReplaySession.Answer {
    var headers: HTTPHeaders = [("Content-Type", "application/json")]
    if let cookie { headers.add(name: "Set-Cookie", value: cookie) }
    return .response(LiveResponse(status: status, headers: headers, body: Array(body.utf8)))
}

@Test func liveCredentialsReplaceRecordedOnesInEveryLaterRequest() throws {
    var replay = session(supplied: ["flp.password.none.1": "hunter2!"])
    let login = try replay.request(for: 1).get()
    #expect(String(decoding: login.body, as: UTF8.self) == "grant_type=password&username=alice&password=hunter2%21")
    let loginResult = replay.finish(
        1,
        with: json(
            200, #"{"access_token":"at_A","refresh_token":"rt_A","token_type":"Bearer","expires_in":300}"#,
            cookie: "session=sess_A; Path=/"))
    #expect(loginResult.outcome == .same)
    let messages = try replay.request(for: 2).get()
    #expect(messages.head.headers.first(name: "authorization") == "Bearer at_A")
    let me = try replay.request(for: 3).get()
    #expect(me.head.headers.first(name: "cookie") == "session=sess_A")
    let refresh = try replay.request(for: 4).get()
    #expect(String(decoding: refresh.body, as: UTF8.self) == "grant_type=refresh_token&refresh_token=rt_A")
    replay.finish(
        4, with: json(200, #"{"access_token":"at_B","refresh_token":"rt_B","token_type":"Bearer","expires_in":300}"#))
    let meAgain = try replay.request(for: 5).get()
    #expect(meAgain.head.headers.first(name: "authorization") == "Bearer at_B")
    #expect(replay.unresolved.isEmpty)
}

@Test func aRequestBeforeItsIssuerAnsweredGoesWithThePseudonym() throws {
    var replay = session()
    let messages = try replay.request(for: 2).get()
    #expect(messages.head.headers.first(name: "authorization") == "Bearer flp.access.L1.1")
    #expect(replay.unresolved == ["flp.access.L1.1"])
}

@Test func answersAreJudgedAgainstTheRecordedOnes() {
    var replay = session()
    replay.finish(
        1, with: json(200, #"{"access_token":"at_A","refresh_token":"rt_A","token_type":"Bearer","expires_in":300}"#))
    let failed = replay.finish(2, with: json(500, #"{"error":"boom"}"#))
    #expect(failed.outcome == .different)
    let me = replay.finish(3, with: json(200, #"{"account":"alice","family":7}"#))
    #expect(me.outcome == .different)
    #expect(me.differences.map(\.description) == ["body /family: 1 → 7"])
    let timedOut = replay.finish(4, with: .failed("read: timed out (--timeout)"))
    #expect(timedOut.outcome == .failed)
    let cut = replay.finish(5, with: .notSent("cut"))
    #expect(cut.outcome == .skipped)
    #expect(replay.isComplete)
    let progress = replay.progress
    #expect(progress.finished == 5 && progress.differences == 4)
    var statusesOnly = session(comparesBodies: false)
    let sameStatus = statusesOnly.finish(3, with: json(200, #"{"account":"alice","family":7}"#))
    #expect(sameStatus.outcome == .same)
}

@Test func aRecordedExchangeWithoutAnswerIsMatchedByNoAnswer() {
    var unanswered = CaptureFixture.exchange(flow: 1, connection: 1, at: 0, path: "/slow", status: nil)
    unanswered.delivered = nil
    let credentials = CredentialMap(findsPseudonyms: true)
    var replay = ReplaySession(
        plan: ReplayPlan(capture: CaptureFixture.capture([unanswered]), credentials: credentials),
        options: ReplayOptions(target: UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 9000)),
        credentials: credentials)
    let result = replay.finish(1, with: .failed("read: timed out (--timeout)"))
    #expect(result.outcome == .same)
    #expect(ReplayReportFormatter.line(result) == "#1 GET http://api.test:8080/slow  recorded none → now error  [same]")
}
