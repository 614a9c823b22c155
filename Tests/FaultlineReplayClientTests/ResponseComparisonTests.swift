import FaultlineCapture
import FaultlineHTTP1
import Testing

@testable import FaultlineReplayClient

private func recorded(_ status: Int, _ body: String?) -> CapturedResponse {
    CapturedResponse(
        status: status, reason: "", httpVersion: "HTTP/1.1", headers: [],
        body: body.map { CapturedContent(bytes: Array($0.utf8)) })
}

private func live(_ status: Int, _ body: String = "") -> LiveResponse {
    LiveResponse(status: status, body: Array(body.utf8))
}

private func differences(
    _ old: CapturedResponse?, _ new: LiveResponse?, bodies: Bool = true,
    map: CredentialMap = CredentialMap(findsPseudonyms: true)
)
    -> [String]
{
    ResponseComparison.differences(recorded: old, live: new, comparesBodies: bodies, credentials: map).map(
        \.description)
}

@Test func statusesAreAlwaysCompared() {
    #expect(differences(recorded(200, "{}"), live(200, "{}"), bodies: false) == [])
    #expect(differences(recorded(200, "{}"), live(500, "x"), bodies: false) == ["status 200 → 500"])
    #expect(differences(nil, live(200)) == ["status none → 200"])
    #expect(differences(recorded(200, nil), nil) == ["status 200 → none"])
    #expect(differences(nil, nil) == [])
}

@Test func bodiesAreComparedOnlyWhenAsked() {
    #expect(differences(recorded(200, #"{"a":1}"#), live(200, #"{"a":2}"#), bodies: false) == [])
    #expect(differences(recorded(200, #"{"a":1}"#), live(200, #"{"a":2}"#)) == ["body /a: 1 → 2"])
}

@Test func jsonBodiesCompareValueByValue() {
    let old = #"{"account":"alice","n":1.0,"list":[1,2],"gone":true,"obj":{"x":null}}"#
    let new = #"{"obj":{"x":null},"list":[1,3,4],"n":1,"account":"bob","added":"v"}"#
    #expect(
        differences(recorded(200, old), live(200, new)) == [
            #"body /account: "alice" → "bob""#, #"body /added: (missing) → "v""#, "body /gone: true → (missing)",
            "body /list/1: 2 → 3", "body /list/2: (missing) → 4",
        ])
    #expect(
        differences(recorded(200, "[1]"), live(200, #"{"a":1}"#)) == ["body: an array of 1 → an object of 1 members"])
}

@Test func recordedCredentialsMatchTheirLiveValues() {
    var map = CredentialMap(findsPseudonyms: true)
    map.learn(recorded: "flp.access.L1.1", live: "at_live")
    let old =
        #"{"access_token":"flp.access.L1.1","refresh_token":"flp.refresh.L1.1","note":"Bearer flp.access.L1.1 ok"}"#
    #expect(
        differences(
            recorded(200, old),
            live(200, #"{"access_token":"at_live","refresh_token":"rt_x","note":"Bearer at_live ok"}"#), map: map) == []
    )
    // A known pseudonym must be its own live value, and a live credential is never shown.
    #expect(
        differences(
            recorded(200, old),
            live(200, #"{"access_token":"at_other","refresh_token":"rt_x","note":"Bearer at_live ok"}"#), map: map)
            == [#"body /access_token: "flp.access.L1.1" → (a credential)"#])
    #expect(
        differences(recorded(200, #"{"echo":"x"}"#), live(200, #"{"echo":"at_live"}"#), map: map) == [
            #"body /echo: "x" → (a credential)"#
        ])
}

@Test func otherBodiesCompareAsTextWithCredentialsMatched() {
    var map = CredentialMap(findsPseudonyms: true)
    map.learn(recorded: "flp.cookie-s.L1.1", live: "sess_live")
    #expect(
        differences(
            recorded(200, "hello flp.cookie-s.L1.1 and flp.other.L1.1!"), live(200, "hello sess_live and zz9!"),
            map: map) == [])
    #expect(differences(recorded(200, "hello"), live(200, "hullo")) == ["body: 5 bytes → 5 bytes, other content"])
    #expect(
        differences(recorded(200, "flp.other.L1.1!"), live(200, "!")) == ["body: 15 bytes → 1 bytes, other content"])
}

@Test func aCutBodyComparesItsLengthAndItsKeptBytes() {
    let cut = CapturedResponse(
        status: 200, reason: "", httpVersion: "HTTP/1.1", headers: [],
        body: CapturedContent(bytes: Array("abc".utf8), length: 6, truncated: true))
    #expect(differences(cut, live(200, "abcdef")) == [])
    #expect(differences(cut, live(200, "abcdefg")) == ["body: 6 bytes → 7 bytes, other content"])
    #expect(differences(cut, live(200, "abXdef")) == ["body: 6 bytes → 6 bytes, other content"])
}
