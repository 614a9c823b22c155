import Testing

@testable import FaultlineReplayClient

@Test func aMapLearnsPseudonymsAndLongRawValuesOnly() {
    var map = CredentialMap(findsPseudonyms: true)
    let learned = [
        map.learn(recorded: "flp.access.L1.1", live: "at_live1"),
        // A logout's empty cookie is no credential.
        map.learn(recorded: "flp.access.L1.2", live: ""),
        // Short raw text would be replaced everywhere.
        map.learn(recorded: "dark", live: "light"),
        map.learn(recorded: "raw-token-123456", live: "other-token-654321"),
        map.learn(recorded: "same-value-12345", live: "same-value-12345"),
    ]
    #expect(learned == [true, false, false, true, false])
    #expect(map.liveValues == ["flp.access.L1.1": "at_live1", "raw-token-123456": "other-token-654321"])
    #expect(map.isLiveValue("at_live1") && !map.isLiveValue("flp.access.L1.1"))
}

@Test func substitutionEscapesTheLiveValueForEachPlace() {
    let map = CredentialMap(findsPseudonyms: true, supplied: ["flp.access.L1.1": #"a+b/c="d"#])
    #expect(map.substituting(in: "Bearer flp.access.L1.1", escaping: .headerValue).text == #"Bearer a+b/c="d"#)
    #expect(
        map.substituting(in: "/v1/x?token=flp.access.L1.1&y=1", escaping: .urlComponent).text
            == "/v1/x?token=a%2Bb%2Fc%3D%22d&y=1")
    #expect(map.substituting(in: #"{"t":"flp.access.L1.1"}"#, escaping: .jsonString).text == #"{"t":"a+b/c=\"d"}"#)
    #expect(map.substituting(in: "flp.access.L1.1", escaping: .raw).text == #"a+b/c="d"#)
}

@Test func aLiveValueThatCannotStandInAHeaderIsNotSentThere() {
    let map = CredentialMap(findsPseudonyms: true, supplied: ["flp.access.L1.1": "evil\r\nX-Injected: 1"])
    let result = map.substituting(in: "Bearer flp.access.L1.1", escaping: .headerValue)
    #expect(result.text == "Bearer flp.access.L1.1")
    #expect(result.unresolved == ["flp.access.L1.1"])
}

@Test func pseudonymsWithoutALiveValueStayAndAreReported() {
    let map = CredentialMap(findsPseudonyms: true, supplied: ["flp.access.L1.1": "live"])
    let result = map.substituting(in: "a=flp.access.L1.1&b=flp.refresh.L1.1", escaping: .urlComponent)
    #expect(result.text == "a=live&b=flp.refresh.L1.1")
    #expect(result.unresolved == ["flp.refresh.L1.1"])
}

@Test func keptSecretsAreReplacedAsTextLongestFirst() {
    var map = CredentialMap(findsPseudonyms: false)
    map.learn(recorded: "token-abcdefgh", live: "NEW1")
    map.learn(recorded: "token-abcdefgh-2", live: "NEW2")
    let result = map.substituting(in: "x=token-abcdefgh-2;y=token-abcdefgh", escaping: .raw)
    #expect(result.text == "x=NEW2;y=NEW1")
    #expect(result.unresolved.isEmpty)
    // Without pseudonyms, text that looks like one is left alone and not reported.
    #expect(map.substituting(in: "flp.access.L1.1", escaping: .raw).unresolved.isEmpty)
}

@Test func bodyEscapingFollowsTheContentType() {
    #expect(
        CredentialEscaping.forBody(contentType: "application/x-www-form-urlencoded; charset=utf-8") == .urlComponent)
    #expect(CredentialEscaping.forBody(contentType: "application/json") == .jsonString)
    #expect(CredentialEscaping.forBody(contentType: "application/vnd.api+json; charset=utf-8") == .jsonString)
    #expect(CredentialEscaping.forBody(contentType: "text/plain") == .raw)
    #expect(CredentialEscaping.forBody(contentType: nil) == .raw)
}
