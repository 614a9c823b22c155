import FaultlineCapture
import FaultlineCore
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

/// The credential-state rules for a credential that travels in the request body or the query
/// rather than a header: a refresh form (RFC 6749 §6), a JSON refresh, `access_token` as a form
/// field (RFC 6750 §2.2) or a query parameter (§2.3). Each on a synthetic recording.
private let formHeaders = [("Content-Type", "application/x-www-form-urlencoded")]
private let jsonHeaders = [("Content-Type", "application/json")]

private func field(_ body: String, _ key: String) -> String {
    // Empty when the answer has no such field: the expectations then say what went wrong.
    guard let start = body.range(of: "\"\(key)\":\"")?.upperBound else { return "" }
    return String(body[start...].prefix { $0 != "\"" })
}

private func text(_ event: ReplayTraceEvent?, _ key: String) -> String? {
    event?.fields.first { $0.key == key }.flatMap {
        if case .string(let value) = $0.value { return value }
        return nil
    }
}

private func matched(_ driver: ReplayDriver, _ flow: FlowID) -> ReplayTraceEvent? {
    driver.events(flow).first { $0.kind == .replayMatched }
}

/// How the refresh request carries its token.
enum RefreshBody: String, CaseIterable, CustomTestStringConvertible {
    case form, json

    func body(_ token: String) -> String {
        switch self {
        case .form: "grant_type=refresh_token&refresh_token=\(token)"
        case .json: #"{"grant_type":"refresh_token","refresh_token":"\#(token)"}"#
        }
    }

    var headers: [(String, String)] { self == .form ? formHeaders : jsonHeaders }
    var testDescription: String { rawValue }
}

/// A HAR from another tool, as `har import` reads it: raw tokens, no kinds. Two logins (the
/// second has its own tokens), and a refresh with the first login's refresh token only.
private func twoLoginsOneRefresh(_ refresh: RefreshBody) -> CaptureBuilder {
    var recording = CaptureBuilder()
    let login = "grant_type=password&username=ann&password=pw"
    recording.add(
        "POST", "http://api.test/oauth/token", headers: formHeaders, body: login, responseHeaders: jsonHeaders,
        responseBody: #"{"access_token":"at-recorded-one","refresh_token":"rt-recorded-one"}"#)
    recording.add(
        "POST", "http://api.test/oauth/token", headers: refresh.headers, body: refresh.body("rt-recorded-one"),
        responseHeaders: jsonHeaders,
        responseBody: #"{"access_token":"at-recorded-two","refresh_token":"rt-recorded-two"}"#)
    recording.add(
        "POST", "http://api.test/oauth/token", headers: formHeaders, body: login, responseHeaders: jsonHeaders,
        responseBody: #"{"access_token":"at-recorded-three","refresh_token":"rt-recorded-three"}"#)
    return recording
}

private func logIn(_ driver: ReplayDriver) -> String {
    let flow = driver.send(
        "POST", "http://api.test/oauth/token", headers: formHeaders,
        body: "grant_type=password&username=ann&password=pw"
    ).flow
    return field(driver.outcome(flow)?.body ?? "", "refresh_token")
}

@Test(
    "A refresh token the recording never sent to the token endpoint stands in for the one it did",
    arguments: RefreshBody.allCases)
func aRefreshInTheBodyStandsInForTheRecordedRefresh(_ refresh: RefreshBody) throws {
    let recording = twoLoginsOneRefresh(refresh)
    let driver = ReplayDriver(recording.capture)
    let first = logIn(driver)
    let refreshed = driver.send(
        "POST", "http://api.test/oauth/token", headers: refresh.headers, body: refresh.body(first))
    #expect(driver.outcome(refreshed.flow)?.status == 200)
    #expect(text(matched(driver, refreshed.flow), "by") == nil)
    let second = logIn(driver)
    #expect(second.hasPrefix("flr") && second != first)
    // The second login's refresh token was never recorded on /oauth/token.
    let standIn = driver.send(
        "POST", "http://api.test/oauth/token", headers: refresh.headers, body: refresh.body(second))
    let outcome = try #require(driver.outcome(standIn.flow))
    #expect(outcome.status == 200, "\(outcome.body)")
    let event = matched(driver, standIn.flow)
    #expect(text(event, "by") == "credential-state" && text(event, "rule") == "stand-in")
    let names = driver.source.issued
    #expect(text(event, "credential") == names.canonical("rt-recorded-three", kind: ""))
    #expect(text(event, "stands_in_for") == names.canonical("rt-recorded-one", kind: ""))
    // The recorded refresh's answer was given already in this run: the stand-in gets new tokens.
    let earlier = driver.outcome(refreshed.flow)?.body ?? ""
    #expect(field(outcome.body, "refresh_token").hasPrefix("flr"))
    #expect(field(outcome.body, "refresh_token") != field(earlier, "refresh_token"))
    #expect(field(outcome.body, "access_token") != field(earlier, "access_token"))
    // No recorded secret in the answer or the trace.
    for event in driver.events(standIn.flow) {
        #expect(!"\(event.fields)".contains("recorded-"))
    }
    #expect(!outcome.body.contains("recorded-"))
}

@Test("A stand-in still needs the rest of the body to match: another field keeps it unmatched")
func aBodyThatDiffersElsewhereIsNoStandIn() throws {
    let driver = ReplayDriver(twoLoginsOneRefresh(.form).capture)
    _ = logIn(driver)
    let second = logIn(driver)
    let flow = driver.send(
        "POST", "http://api.test/oauth/token", headers: formHeaders,
        body: "grant_type=refresh_token&refresh_token=\(second)&scope=admin"
    ).flow
    let outcome = try #require(driver.outcome(flow))
    #expect(outcome.status == 502 && outcome.body.contains("scope"))
    #expect(matched(driver, flow) == nil)
}

/// Where an API call carries its access token.
enum TokenPlace: String, CaseIterable, CustomTestStringConvertible {
    case header, query, form, json

    /// The method, URL, headers and body of a call to /v1/notes presenting `token`.
    func call(_ token: String) -> (String, String, [(String, String)], String) {
        switch self {
        case .header:
            ("POST", "http://api.test/v1/notes", [("Authorization", "Bearer \(token)")] + formHeaders, "text=hi")
        case .query: ("POST", "http://api.test/v1/notes?access_token=\(token)", formHeaders, "text=hi")
        case .form: ("POST", "http://api.test/v1/notes", formHeaders, "access_token=\(token)&text=hi")
        case .json: ("POST", "http://api.test/v1/notes", jsonHeaders, #"{"access_token":"\#(token)","text":"hi"}"#)
        }
    }

    var testDescription: String { rawValue }
}

@Test(
    "An access token in the body or the query stands in for another, as one in a header does",
    arguments: TokenPlace.allCases)
func anAccessTokenAnywhereStandsIn(_ place: TokenPlace) throws {
    // L1 posted a note, L2 (a second login) only read /v1/me.
    var recording = CaptureBuilder()
    let login = "grant_type=password&username=ann&password=pw"
    for lineage in 1...2 {
        recording.add(
            "POST", "http://api.test/oauth/token", headers: formHeaders, body: login, role: "login",
            responseHeaders: jsonHeaders,
            responseBody: #"{"access_token":"flp.access.L\#(lineage).1","refresh_token":"flp.refresh.L\#(lineage).1"}"#)
        if lineage == 1 {
            let (method, url, headers, body) = place.call("flp.access.L1.1")
            recording.add(method, url, headers: headers, body: body, status: 201, responseBody: "noted")
        } else {
            recording.add(
                "GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer flp.access.L2.1")],
                responseBody: "me")
        }
    }
    let driver = ReplayDriver(recording.capture)
    var tokens: [String] = []
    for _ in 1...2 {
        let flow = driver.send("POST", "http://api.test/oauth/token", headers: formHeaders, body: login).flow
        tokens.append(field(driver.outcome(flow)?.body ?? "", "access_token"))
    }
    let (method, url, headers, body) = place.call(tokens[1])
    let call = driver.send(method, url, headers: headers, body: body).flow
    let outcome = try #require(driver.outcome(call))
    #expect(outcome.status == 201 && outcome.body == "noted", "\(outcome.body)")
    let event = matched(driver, call)
    #expect(text(event, "rule") == "stand-in")
    #expect(text(event, "credential") == "issued:flp.access.L2.1")
    #expect(text(event, "stands_in_for") == "issued:flp.access.L1.1")
}

@Test("A credential in the body that this run has seen revoked gets the recorded rejection on any path")
func aRejectedCredentialInTheBodyGetsTheRecordedRejection() throws {
    let driver = ReplayDriver(refreshRaceRecording().capture)
    let login = driver.send(
        "POST", "http://api.test/oauth/token", headers: formHeaders,
        body: "grant_type=password&username=ann&password=pw"
    ).flow
    let refreshToken = field(driver.outcome(login)?.body ?? "", "refresh_token")
    let refresh = "grant_type=refresh_token&refresh_token=\(refreshToken)"
    let won = driver.send("POST", "http://api.test/oauth/token", headers: formHeaders, body: refresh).flow
    let winner = field(driver.outcome(won)?.body ?? "", "access_token")
    _ = driver.send("POST", "http://api.test/oauth/token", headers: formHeaders, body: refresh)
    // The reuse revoked L1: L1.2 in a form body (RFC 6750 §2.2), on a path never recorded.
    let call = driver.send(
        "POST", "http://api.test/v1/notes", headers: formHeaders, body: "access_token=\(winner)&text=hi")
    let outcome = try #require(driver.outcome(call.flow))
    #expect(outcome.status == 401 && outcome.body == "revoked")
    let event = matched(driver, call.flow)
    #expect(text(event, "rule") == "rejected" && text(event, "cause") == "reuse")
    #expect(text(event, "credential") == "issued:flp.access.L1.2")
}
