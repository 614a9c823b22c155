import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import Testing

@testable import FaultlineReplayClient

@Test func aRecordedAnswerIssuesItsCookiesAndCredentialMembers() {
    let map = CredentialMap(findsPseudonyms: true)
    let headers: HTTPHeaders = [
        ("Set-Cookie", "session=flp.cookie-session.L1.1; Path=/; HttpOnly"), ("Set-Cookie", "gone=; Max-Age=0"),
        ("Set-Cookie", "theme=dark"),
    ]
    let body =
        #"{"access_token":"flp.access.L1.1","token_type":"Bearer","nested":{"k/x":["flp.csrf.L1.1"]},"token":"raw-but-long-enough","id_token":"short"}"#
    let sites = CredentialSite.sites(headers: headers, body: Array(body.utf8), learnableBy: map)
    #expect(
        sites == [
            CredentialSite(.cookie(name: "session"), value: "flp.cookie-session.L1.1"),
            CredentialSite(.json(pointer: "/access_token"), value: "flp.access.L1.1"),
            CredentialSite(.json(pointer: "/nested/k~1x/0"), value: "flp.csrf.L1.1"),
            CredentialSite(.json(pointer: "/token"), value: "raw-but-long-enough"),
        ])
}

@Test func aLiveAnswerHasItsValueAtTheSamePlace() throws {
    let headers: HTTPHeaders = [("Set-Cookie", "session=old; Path=/"), ("Set-Cookie", "session=sess_live; Path=/")]
    let json = JSONValue.parse(Array(#"{"nested":{"k/x":["csrf-live"]},"n":1}"#.utf8))
    #expect(CredentialSite.value(at: .cookie(name: "session"), headers: headers, json: nil) == "sess_live")
    #expect(CredentialSite.value(at: .json(pointer: "/nested/k~1x/0"), headers: [], json: json) == "csrf-live")
    #expect(CredentialSite.value(at: .json(pointer: "/n"), headers: [], json: json) == nil)
    #expect(CredentialSite.value(at: .cookie(name: "other"), headers: headers, json: json) == nil)
}
