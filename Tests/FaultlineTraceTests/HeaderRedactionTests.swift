import FaultlineCore
import Testing

@testable import FaultlineTrace

@Suite struct HeaderRedactionTests {
    let recorder: TraceRecorder

    init() throws {
        recorder = try memoryRecorder()
    }

    private func fp(_ secret: String) -> String { recorder.fingerprint(secret) }

    @Test func authorizationKeepsTheSchemeAndFingerprintsTheCredentials() throws {
        #expect(
            try redactedHeader("Authorization", "Bearer s3cr3t-access", on: recorder) == "Bearer \(fp("s3cr3t-access"))"
        )
        #expect(
            try redactedHeader("authorization", "Basic dXNlcjpodW50ZXIy", on: recorder)
                == "Basic \(fp("dXNlcjpodW50ZXIy"))")
        #expect(
            try redactedHeader("PROXY-AUTHORIZATION", "Digest username=\"a\", response=\"r3sp\"", on: recorder)
                == "Digest \(fp("username=\"a\", response=\"r3sp\""))")
        #expect(recorder.memoryContents().contains("s3cr3t-access") == false)
        #expect(recorder.memoryContents().contains("dXNlcjpodW50ZXIy") == false)
        #expect(recorder.memoryContents().contains("r3sp") == false)
    }

    @Test func authorizationWithoutASchemeIsFingerprintedWhole() throws {
        #expect(try redactedHeader("Authorization", "rawtoken123", on: recorder) == fp("rawtoken123"))
        #expect(try redactedHeader("Authorization", "  rawtoken123\t", on: recorder) == fp("rawtoken123"))
        // A first word that is not a token is not a scheme.
        #expect(try redactedHeader("Authorization", "a\"b s3cr3t", on: recorder) == fp("a\"b s3cr3t"))
        #expect(try redactedHeader("Authorization", "", on: recorder) == "")
        #expect(try redactedHeader("Authorization", "   ", on: recorder) == "")
        #expect(
            try redactedHeader("Authorization", "Bearer    spaced-tok3n  ", on: recorder)
                == "Bearer \(fp("spaced-tok3n"))")
        #expect(!recorder.memoryContents().contains("rawtoken123"))
        #expect(!recorder.memoryContents().contains("s3cr3t"))
        #expect(!recorder.memoryContents().contains("spaced-tok3n"))
    }

    @Test func cookieKeepsNamesAndFingerprintsEachValue() throws {
        let value = try redactedHeader("Cookie", "sid=AAA111; theme=dark;csrf=BBB222", on: recorder)
        #expect(value == "sid=\(fp("AAA111")); theme=\(fp("dark")); csrf=\(fp("BBB222"))")
        #expect(!recorder.memoryContents().contains("AAA111"))
        #expect(!recorder.memoryContents().contains("BBB222"))
    }

    @Test func cookieOddInputsNeverLeak() throws {
        let value = try redactedHeader("cookie", " ; lonelyS3CRET ;sid= ; =n0name; sid=DUP1; sid=DUP1 ;;", on: recorder)
        #expect(value == "\(fp("lonelyS3CRET")); sid=; =\(fp("n0name")); sid=\(fp("DUP1")); sid=\(fp("DUP1"))")
        #expect(try redactedHeader("Cookie", "", on: recorder) == "")
        for secret in ["lonelyS3CRET", "n0name", "DUP1"] {
            #expect(!recorder.memoryContents().contains(secret))
        }
    }

    @Test func setCookieKeepsNameAndAttributes() throws {
        let value = try redactedHeader(
            "Set-Cookie",
            "sid=SESSION42; Path=/; Domain=example.com; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=3600; HttpOnly; Secure; SameSite=Lax",
            on: recorder)
        #expect(
            value
                == "sid=\(fp("SESSION42")); Path=/; Domain=example.com; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=3600; HttpOnly; Secure; SameSite=Lax"
        )
        #expect(!recorder.memoryContents().contains("SESSION42"))
    }

    @Test func setCookieOddInputsNeverLeak() throws {
        // Unknown attributes keep their name only; a bare first piece is fingerprinted whole.
        #expect(
            try redactedHeader("set-cookie", "sid=S1; Custom=ATTRSECRET; Flag", on: recorder)
                == "sid=\(fp("S1")); Custom=\(fp("ATTRSECRET")); \(fp("Flag"))")
        #expect(try redactedHeader("Set-Cookie", "BARESECRET; Path=/", on: recorder) == "\(fp("BARESECRET")); Path=/")
        #expect(try redactedHeader("Set-Cookie", "gone=; Max-Age=0", on: recorder) == "gone=; Max-Age=0")
        // A folded second cookie (RFC 6265 §3 forbids folding) must not ride along in an attribute.
        let folded = try redactedHeader(
            "Set-Cookie", "a=FOLD1; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=FOLD2; Path=/", on: recorder)
        #expect(folded.hasPrefix("a=\(fp("FOLD1")); Expires="))
        #expect(try redactedHeader("Set-Cookie", "", on: recorder) == "")
        for secret in ["S1", "ATTRSECRET", "BARESECRET", "FOLD1", "FOLD2"] {
            #expect(!recorder.memoryContents().contains(secret))
        }
    }

    @Test func configuredHeadersAreFingerprintedWhole() throws {
        let policy = RedactionPolicy(extraHeaderNames: ["X-Api-Key", "x-session-token"])
        let configured = try memoryRecorder(policy)
        #expect(try redactedHeader("x-api-key", " KEY-123 ", on: configured) == configured.fingerprint("KEY-123"))
        #expect(try redactedHeader("X-Session-Token", "TOK-456", on: configured) == configured.fingerprint("TOK-456"))
        #expect(!configured.memoryContents().contains("KEY-123"))
        #expect(!configured.memoryContents().contains("TOK-456"))
        // Without the configuration the header is ordinary.
        #expect(try redactedHeader("X-Api-Key", "KEY-123", on: recorder) == "KEY-123")
    }

    @Test func ordinaryHeadersAreWrittenAsIs() throws {
        let (_, event) = try recordOne(
            [.headers("h", [("Host", "example.com"), ("Accept", "*/*"), ("X-Quote", "say \"hi\"\\")])], on: recorder)
        let headers = try #require(event.headers("h"))
        #expect(headers.map(\.name) == ["Host", "Accept", "X-Quote"])
        #expect(headers.map(\.value) == ["example.com", "*/*", "say \"hi\"\\"])
    }

    @Test func urlHeadersAreRedactedLikeTargets() throws {
        #expect(
            try redactedHeader("Location", "myapp://cb?code=LOC4CODE&state=s1", on: recorder)
                == "myapp://cb?code=\(fp("LOC4CODE"))&state=s1")
        #expect(!recorder.memoryContents().contains("LOC4CODE"))
    }

    @Test func headersInsideObjectsAreRedactedToo() throws {
        let (line, event) = try recordOne(
            [.object("request", [.headers("headers", [("Authorization", "Bearer NESTEDTOK")])])], on: recorder)
        #expect(!line.contains("NESTEDTOK"))
        let headers = try #require(event.object("request")?["headers"]?.arrayValue)
        #expect(headers == [.array([.string("Authorization"), .string("Bearer \(fp("NESTEDTOK"))")])])
    }
}
