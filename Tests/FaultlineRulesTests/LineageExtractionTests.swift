import Testing

@testable import FaultlineRules

/// Where credentials are found, per profile location.
@Suite struct LineageExtractionTests {
    private func tracker(request: [CredentialLocation] = [], response: [CredentialLocation] = []) -> LineageTracker {
        LineageTracker(
            profile: AuthProfile(requestCredentials: request, responseCredentials: response, file: "p.json5"),
            fingerprint: { "<\($0)>" })  // readable in these tests only
    }

    @Test func bearerSchemeIsCaseInsensitiveAndOnlyThatScheme() {
        let t = tracker(request: [CredentialLocation(.header(name: "Authorization", scheme: "Bearer"), kind: .access)])
        let found = t.presentedCredentials(
            in: FlowView(headers: [
                ("authorization", "bearer  tok1 "), ("Authorization", "Basic dXNlcjpwdw=="),
                ("Authorization", "Bearertok2"),
                ("AUTHORIZATION", "BEARER tok3"), ("Authorization", "Bearer "),
            ]))
        #expect(found.map(\.fingerprint) == ["<tok1>", "<tok3>"])
        #expect(found.first?.place == "header Authorization")
        #expect(found.first?.kind == .access)
    }

    @Test func headerWithoutSchemeIsTheWholeValue() {
        let t = tracker(request: [CredentialLocation(.header(name: "X-Api-Key", scheme: nil), kind: .access)])
        #expect(t.presentedCredentials(in: FlowView(headers: [("x-api-key", " k 1 ")])).map(\.fingerprint) == ["<k 1>"])
    }

    @Test func cookiesFormAndJSONInRequests() {
        let t = tracker(request: [
            CredentialLocation(.cookie("sid"), kind: .session),
            CredentialLocation(.form("refresh_token"), kind: .refresh),
            CredentialLocation(.json("/auth/token"), kind: .access),
            CredentialLocation(.setCookie("sid"), kind: .session),
        ])
        let cookies = t.presentedCredentials(in: FlowView(headers: [("Cookie", "a=1; sid=s1"), ("Cookie", "sid=s1")]))
        #expect(cookies == [Credential(kind: .session, place: "cookie sid", fingerprint: "<s1>")], "duplicates once")
        let form = t.presentedCredentials(in: FlowView(body: Array("refresh_token=r%2B1+x".utf8)))
        #expect(form.map(\.fingerprint) == ["<r+1 x>"])
        let json = t.presentedCredentials(in: FlowView(body: Array(#"{"auth": {"token": 123}}"#.utf8)))
        #expect(json == [Credential(kind: .access, place: "json /auth/token", fingerprint: "<123>")])
        #expect(t.presentedCredentials(in: FlowView(body: nil)).isEmpty)
    }

    @Test func responseLocations() {
        let t = tracker(
            request: [CredentialLocation(.header(name: "Authorization", scheme: "Bearer"), kind: .access)],
            response: [
                CredentialLocation(.json("/data/token"), kind: .access),
                CredentialLocation(.json("/data/refresh"), kind: .refresh),
                CredentialLocation(.setCookie("sid"), kind: .session),
                CredentialLocation(.header(name: "X-Session", scheme: nil), kind: .session),
            ])
        let events = t.responseCompleted(
            role: FlowRole.login, requestCredentials: [], status: 201,
            headers: [
                ("Set-Cookie", "other=1"), ("set-cookie", "sid=abc; Secure"), ("Set-Cookie", "sid=gone; Max-Age=0"),
                ("X-Session", "xs"),
            ],
            body: Array(#"{"data": {"token": "t1", "refresh": {"nested": true}}}"#.utf8))
        #expect(
            events == [
                .login(
                    LineageID(1),
                    issued: [
                        Credential(kind: .access, place: "json /data/token", fingerprint: "<t1>"),
                        Credential(kind: .session, place: "set-cookie sid", fingerprint: "<abc>"),
                        Credential(kind: .session, place: "header X-Session", fingerprint: "<xs>"),
                    ])
            ])
        #expect(t.lineages().first?.credentials.map(\.fingerprint) == ["<t1>", "<xs>"], "newest of each kind")
    }

    @Test func responsesWithoutCredentialsStartNothing() {
        let t = tracker(response: [CredentialLocation(.json("/access_token"), kind: .access)])
        #expect(
            t.responseCompleted(role: FlowRole.login, requestCredentials: [], status: 200, headers: [], body: nil)
                .isEmpty)
        #expect(
            t.responseCompleted(
                role: FlowRole.login, requestCredentials: [], status: 200, headers: [], body: Array("not json".utf8)
            ).isEmpty)
        #expect(
            t.responseCompleted(
                role: FlowRole.login, requestCredentials: [], status: 200, headers: [],
                body: Array(#"{"access_token": ""}"#.utf8)
            ).isEmpty, "an empty value is no credential")
        #expect(t.lineages().isEmpty)
    }
}
