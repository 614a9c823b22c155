import FaultlineConfig
import Foundation
import Testing

@testable import FaultlineRules

/// The README's auth profile, as text and as the model value it must load into.
enum ReadmeProfile {
    static let text = """
        {
          login:   { method: "POST", path: "/oauth/token", body: { form: { grant_type: "password" } } },
          refresh: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "refresh_token" } } },
          // any entry of a list gives the role: this app logs out at two endpoints
          logout:  [{ method: "POST", path: "/logout" }, { method: "POST", path: "/sso/logout" }],
          revoke:  { method: "POST", path: "/oauth/revoke" },   // RFC 7009
          roles: { callback: { method: "POST", path: "/jobs/*/complete" } },
          credentials: {
            // where requests present credentials
            request: [
              { header: "Authorization", scheme: "Bearer", kind: "access" },
              { cookie: "session", kind: "session" },
              { form: "refresh_token", kind: "refresh" },   // RFC 6749 §6
            ],
            // where responses issue them
            response: [
              { json: "/access_token", kind: "access" },
              { json: "/refresh_token", kind: "refresh" },
              { setCookie: "session", kind: "session" },
            ],
          },
          idempotencyHeader: "Idempotency-Key",
        }
        """

    static func model(file: String) -> AuthProfile {
        AuthProfile(
            login: [
                FlowMatch(
                    methods: ["POST"], path: Glob("/oauth/token"),
                    body: BodyMatch(form: ["grant_type": .equals("password")]))
            ],
            refresh: [
                FlowMatch(
                    methods: ["POST"], path: Glob("/oauth/token"),
                    body: BodyMatch(form: ["grant_type": .equals("refresh_token")]))
            ],
            logout: [
                FlowMatch(methods: ["POST"], path: Glob("/logout")),
                FlowMatch(methods: ["POST"], path: Glob("/sso/logout")),
            ],
            revoke: [FlowMatch(methods: ["POST"], path: Glob("/oauth/revoke"))],
            roles: [
                ProfileRole(name: "callback", matches: [FlowMatch(methods: ["POST"], path: Glob("/jobs/*/complete"))])
            ],
            requestCredentials: [
                CredentialLocation(.header(name: "Authorization", scheme: "Bearer"), kind: .access),
                CredentialLocation(.cookie("session"), kind: .session),
                CredentialLocation(.form("refresh_token"), kind: .refresh),
            ],
            responseCredentials: [
                CredentialLocation(.json("/access_token"), kind: .access),
                CredentialLocation(.json("/refresh_token"), kind: .refresh),
                CredentialLocation(.setCookie("session"), kind: .session),
            ],
            idempotencyHeader: "Idempotency-Key", file: file)
    }

    static var loaded: AuthProfile {
        let (profile, errors) = RuleSetLoader.loadProfile(text: text, file: "auth-profile.json5")
        precondition(errors.isEmpty, "\(errors)")
        return profile!
    }
}

/// Text with `⟨` markers where errors are expected and `⟪` markers at places messages refer to:
/// the text without markers, and the position of each marker in order. In expected messages,
/// `@0`, `@1`... stand for the `line:column` of the first, second... `⟪` marker. Columns count
/// Unicode scalars, as the parser does.
struct Marked {
    let text: String
    let positions: [(line: Int, column: Int)]
    let references: [String]

    init(_ marked: String) {
        var text = String.UnicodeScalarView()
        var positions: [(line: Int, column: Int)] = []
        var references: [String] = []
        var line = 1
        var column = 1
        for scalar in marked.unicodeScalars {
            if scalar == "⟨" {
                positions.append((line, column))
                continue
            }
            if scalar == "⟪" {
                references.append("\(line):\(column)")
                continue
            }
            text.append(scalar)
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        self.text = String(text)
        self.positions = positions
        self.references = references
    }

    /// The expected errors: one message per `⟨` marker, in marker order.
    func errors(file: String, _ messages: [String]) -> [ConfigError] {
        guard messages.count == positions.count else {
            Issue.record("\(messages.count) messages for \(positions.count) markers")
            return []
        }
        return zip(positions, messages).map { position, message in
            var resolved = message
            for (index, reference) in references.enumerated().reversed() {
                resolved = resolved.replacingOccurrences(of: "@\(index)", with: reference)
            }
            return ConfigError(
                resolved, at: FaultlineConfig.SourceLocation(file: file, line: position.line, column: position.column))
        }
    }
}

/// A fresh folder under the system's temporary directory, removed by `remove()`.
struct TemporaryFolder {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("faultline-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    func write(_ name: String, bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
