import Testing

@testable import FaultlineRules

@Suite struct MatcherGlobTests {
    private func path(_ pattern: String, _ text: String) -> Bool {
        GlobMatcher(Glob(pattern), mode: .path).matches(text)
    }

    private func host(_ pattern: String, _ text: String) -> Bool {
        GlobMatcher(Glob(pattern), mode: .host).matches(text)
    }

    @Test func literalPathsMatchExactlyAndCaseSensitively() {
        #expect(path("/oauth/token", "/oauth/token"))
        #expect(!path("/oauth/token", "/oauth/token/"))
        #expect(!path("/oauth/token", "/OAuth/token"))
        #expect(!path("/oauth/token", "/oauth/tok"))
        #expect(path("", ""))
        #expect(!path("", "/"))
    }

    @Test func starStaysWithinOneSegment() {
        #expect(path("/jobs/*/complete", "/jobs/42/complete"))
        #expect(path("/jobs/*/complete", "/jobs//complete"))
        #expect(!path("/jobs/*/complete", "/jobs/4/2/complete"))
        #expect(!path("/jobs/*/complete", "/jobs/complete"))
        #expect(path("/files/*.json", "/files/a.json"))
        #expect(!path("/files/*.json", "/files/a/b.json"))
        #expect(path("/a*", "/abc"))
        #expect(!path("/a*", "/ab/c"))
    }

    @Test func globstarCrossesSegments() {
        #expect(path("/api/**", "/api/"))
        #expect(path("/api/**", "/api/v1/users/7"))
        #expect(!path("/api/**", "/api"))
        #expect(!path("/api/**", "/apix/y"))
        #expect(path("**", "/anything/at/all"))
        #expect(path("/a/**z", "/a/b/c/xyz"))
    }

    @Test func globstarSlashAlsoMatchesZeroSegments() {
        #expect(path("/api/**/items", "/api/items"))
        #expect(path("/api/**/items", "/api/v1/items"))
        #expect(path("/api/**/items", "/api/v1/x/items"))
        #expect(!path("/api/**/items", "/api/v1items"))
        #expect(!path("/api/**/items", "/api/items/x"))
    }

    @Test func questionMarkIsOneCharacterButNotTheSeparator() {
        #expect(path("/v?/x", "/v1/x"))
        #expect(!path("/v?/x", "/v/x"))
        #expect(!path("/v?/x", "/v12/x"))
        #expect(!path("/a?b", "/a/b"))
        #expect(path("/caf?", "/café"))
    }

    @Test func backslashEscapesAWildcard() {
        #expect(path("/a\\*b", "/a*b"))
        #expect(!path("/a\\*b", "/axb"))
        #expect(path("/a\\?", "/a?"))
        #expect(!path("/a\\?", "/ab"))
    }

    @Test func manyStarsDoNotBacktrackExponentially() {
        let text = "/" + String(repeating: "a", count: 5_000)
        #expect(!path("/*a*a*a*a*a*a*a*a*a*a*b", text))
        #expect(!path("/**a**a**a**a**a**a**b", text))
        #expect(path("/*a*a*a*a*a*a*a*a*a*a", text))
    }

    @Test func hostStarIsOneLabelAndCaseInsensitive() {
        #expect(host("*.example.test", "api.example.test"))
        #expect(host("*.example.test", "API.Example.TEST"))
        #expect(host("*.EXAMPLE.test", "api.example.test"))
        #expect(!host("*.example.test", "a.b.example.test"))
        #expect(!host("*.example.test", "example.test"))
        #expect(!host("*.example.test", "api.example.test.evil"))
        #expect(host("api-*.example.test", "api-eu.example.test"))
    }

    @Test func hostGlobstarCrossesLabelsAndMatchesTheApex() {
        #expect(host("**.example.test", "example.test"))
        #expect(host("**.example.test", "a.b.example.test"))
        #expect(!host("**.example.test", "badexample.test"))
        #expect(host("**", "anything.at.all"))
    }

    @Test func hostQuestionMarkAndTrailingDot() {
        #expect(host("api?.example.test", "api1.example.test"))
        #expect(!host("api?example.test", "api.example.test"))
        #expect(host("api.example.test", "api.example.test."))
        #expect(!host("api.example.test", "api.example.test.."))
    }

    @Test func multiByteCharactersAreWholeCharacters() {
        #expect(path("/caf?/x", "/café/x"))
        #expect(!path("/caf??/x", "/café/x"), "é is one character, though two bytes")
        #expect(path("/*é", "/cafeé"))
        #expect(path("/\\é*", "/éa"))
        #expect(path("/日本/*", "/日本/語"))
        #expect(!path("/日本/?", "/日本/語x"))
        #expect(path("/日本/?", "/日本/語"))
    }

    @Test func literalOnlyPatternsCompareWholeText() {
        #expect(host("API.Example.test", "api.example.TEST"))
        #expect(!host("api.example.test", "api.example.tes"))
        #expect(path("/a/b", "/a/b"))
        #expect(!path("/a/b", "/a/bc"))
        #expect(!path("/a*b", "/a"), "prefix and suffix must not overlap")
        #expect(path("/a*a", "/aa"))
        #expect(!path("/a*a", "/a"))
    }
}
