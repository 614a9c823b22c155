import Testing

@testable import FaultlineTrace

@Suite struct TargetRedactionTests {
    let recorder: TraceRecorder

    init() throws {
        recorder = try memoryRecorder()
    }

    private func fp(_ secret: String) -> String { recorder.fingerprint(secret) }

    private func redacted(_ target: String, on recorder: TraceRecorder? = nil) throws -> String {
        let (_, event) = try recordOne([.target("target", target)], on: recorder ?? self.recorder)
        return try #require(event.string("target"))
    }

    @Test func secretQueryParametersAreFingerprinted() throws {
        #expect(
            try redacted("/callback?code=AUTHC0DE&state=xyz&access_token=ACC3SS")
                == "/callback?code=\(fp("AUTHC0DE"))&state=xyz&access_token=\(fp("ACC3SS"))")
        for name in RedactionPolicy.defaultSecretQueryParameters {
            #expect(try redacted("/p?\(name)=V4LUE-\(name)") == "/p?\(name)=\(fp("V4LUE-\(name)"))")
        }
        #expect(!recorder.memoryContents().contains("AUTHC0DE"))
        #expect(!recorder.memoryContents().contains("ACC3SS"))
        #expect(!recorder.memoryContents().contains("V4LUE"))
    }

    @Test func oddQueriesNeverLeak() throws {
        #expect(
            try redacted("/p?token=&token=DUPV&token=DUPV&x") == "/p?token=&token=\(fp("DUPV"))&token=\(fp("DUPV"))&x")
        #expect(try redacted("/p?TOKEN=UPPERV") == "/p?TOKEN=\(fp("UPPERV"))")
        // A percent-encoded name is the same parameter to the server.
        #expect(try redacted("/p?access%5Ftoken=ENCV") == "/p?access%5Ftoken=\(fp("ENCV"))")
        // Values are fingerprinted decoded, to match the same credential seen elsewhere.
        #expect(try redacted("/p?code=a%2Fb") == "/p?code=\(fp("a/b"))")
        #expect(try redacted("/p?") == "/p?")
        #expect(try redacted("/p?&&") == "/p?&&")
        #expect(try redacted("") == "")
        for secret in ["DUPV", "UPPERV", "ENCV"] {
            #expect(!recorder.memoryContents().contains(secret))
        }
    }

    @Test func fragmentParametersAreFingerprinted() throws {
        // OAuth's implicit grant returns the token in the fragment (RFC 6749 §4.2.2).
        #expect(
            try redacted("https://app.example/cb#access_token=FRAGTOK&token_type=bearer")
                == "https://app.example/cb#access_token=\(fp("FRAGTOK"))&token_type=bearer")
        #expect(try redacted("/p?a=1#section") == "/p?a=1#section")
        #expect(!recorder.memoryContents().contains("FRAGTOK"))
    }

    @Test func userinfoPasswordIsFingerprinted() throws {
        #expect(
            try redacted("https://alice:hunter2@example.com/path?q=1")
                == "https://alice:\(fp("hunter2"))@example.com/path?q=1")
        #expect(try redacted("http://bob:@example.com/") == "http://bob:@example.com/")
        // A userinfo without ':' may be a bare token (https://TOKEN@host).
        #expect(try redacted("https://ghp_BARETOKEN@github.com/x") == "https://\(fp("ghp_BARETOKEN"))@github.com/x")
        // The last '@' of the authority ends the userinfo; an '@' in the path is not userinfo.
        #expect(
            try redacted("http://u:p@ss@host/a@b") == "http://u:\(fp("p@ss"))@host/a@b")
        #expect(try redacted("http://host/a@b?token=T0K") == "http://host/a@b?token=\(fp("T0K"))")
        // A network-path reference, as a Location header may hold.
        #expect(try redacted("//dave:NETPASS@example.com/x") == "//dave:\(fp("NETPASS"))@example.com/x")
        // Authority-form (CONNECT) must not carry userinfo, but a client may send it anyway.
        #expect(try redacted("carol:CONNPASS@example.com:443") == "carol:\(fp("CONNPASS"))@example.com:443")
        for secret in ["hunter2", "BARETOKEN", "p@ss", "T0K", "NETPASS", "CONNPASS"] {
            #expect(!recorder.memoryContents().contains(secret))
        }
    }

    @Test func configuredQueryParametersAreFingerprinted() throws {
        let configured = try memoryRecorder(RedactionPolicy(extraQueryParameters: ["sig", "X-Amz-Signature"]))
        #expect(
            try redacted("/o?sig=SIGV&x-amz-signature=AMZV&code=CV", on: configured)
                == "/o?sig=\(configured.fingerprint("SIGV"))&x-amz-signature=\(configured.fingerprint("AMZV"))&code=\(configured.fingerprint("CV"))"
        )
        #expect(!configured.memoryContents().contains("SIGV"))
        #expect(!configured.memoryContents().contains("AMZV"))
        #expect(try redacted("/o?sig=SIGV") == "/o?sig=SIGV")
    }

    @Test func ordinaryTargetsAreWrittenAsIs() throws {
        for target in [
            "/", "*", "example.com:443", "/a/b?c=d&e=f", "http://example.com:8080/x?y=z#frag", "/caf%C3%A9?q=\"x\"",
        ] {
            #expect(try redacted(target) == target)
        }
    }
}
