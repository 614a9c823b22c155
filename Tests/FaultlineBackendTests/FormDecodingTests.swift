import Testing

@testable import FaultlineBackend

@Suite struct FormDecodingTests {
    func decode(_ text: String) throws -> [String] {
        try FormFields.decode(Array(text.utf8)).pairs.map { "\($0.name)=\($0.value)" }
    }

    @Test func splitsPairsAndDecodesPlusAndPercentEscapes() throws {
        #expect(
            try decode("grant_type=password&username=a+b&password=p%26q%3D%25") == [
                "grant_type=password", "username=a b", "password=p&q=%",
            ])
        #expect(try decode("name=J%C3%A9r%C3%B4me") == ["name=Jérôme"])
        #expect(try decode("%2B=%2b") == ["+=+"])
    }

    @Test func emptyPiecesAreSkippedAndBareNamesHaveEmptyValues() throws {
        #expect(try decode("") == [])
        #expect(try decode("&&a=1&&b&c=") == ["a=1", "b=", "c="])
        #expect(try decode("a==b") == ["a==b"])
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%G1", "%=1", "a=%C3%28", "a=%FF"])
    func brokenEscapesAndNonUTF8AreErrors(_ input: String) {
        #expect(throws: FormError.self) { try decode(input) }
    }

    @Test func repeatedNamesAreFound() throws {
        #expect(try FormFields.decode(Array("a=1&b=2&a=3".utf8)).repeatedName == "a")
        #expect(try FormFields.decode(Array("a=1&b=2".utf8)).repeatedName == nil)
        #expect(try FormFields.decode(Array("a=1&b=2&a=3".utf8)).value("a") == "1")
    }
}

@Suite struct RouterTests {
    @Test func matchesEveryEndpoint() {
        let cases: [(String, String, Route)] = [
            ("POST", "/oauth/token", .token), ("POST", "/oauth/revoke", .revoke), ("POST", "/logout", .logout),
            ("GET", "/v1/messages", .messages),
            ("GET", "/v1/avatar", .avatar), ("GET", "/v1/count", .count), ("GET", "/v1/me", .me),
            ("HEAD", "/v1/me", .me), ("POST", "/v1/notes", .notes), ("POST", "/jobs", .createJob),
            ("GET", "/jobs/7", .job(id: "7")), ("POST", "/jobs/7/download", .jobStep(id: "7", step: .download)),
            ("POST", "/jobs/7/convert", .jobStep(id: "7", step: .convert)),
            ("POST", "/jobs/7/write", .jobStep(id: "7", step: .write)), ("POST", "/jobs/7/cancel", .cancelJob(id: "7")),
            ("POST", "/jobs/abc/complete", .completeJob(id: "abc")), ("GET", "/_backend/stats", .stats),
            ("POST", "/_backend/expire", .expire), ("POST", "/_backend/reset", .reset),
        ]
        for (method, path, route) in cases {
            #expect(Router.match(method: method, path: path) == .found(route), "\(method) \(path)")
        }
    }

    @Test func unknownPathsAreNotFoundAndWrongMethodsListTheAllowedOnes() {
        for path in [
            "/", "/v1", "/v1/me/", "/v1/ME", "/jobs/", "/jobs/1/explode", "/jobs/1/write/x", "//oauth/token", "x",
        ] {
            #expect(Router.match(method: "GET", path: path) == .notFound, "\(path)")
        }
        #expect(Router.match(method: "GET", path: "/oauth/token") == .methodNotAllowed(allowed: ["POST"]))
        #expect(Router.match(method: "POST", path: "/v1/me") == .methodNotAllowed(allowed: ["GET", "HEAD"]))
        #expect(Router.match(method: "DELETE", path: "/jobs/3") == .methodNotAllowed(allowed: ["GET", "HEAD"]))
        #expect(Router.match(method: "get", path: "/v1/me") == .methodNotAllowed(allowed: ["GET", "HEAD"]))
    }
}
