import FaultlineTesting
import Foundation

/// The rules the fixture's tests run with: the repository's auth profile for the reference
/// backend, the first business request answered 401, and every refresh response held until the
/// test releases it (10 seconds at most).
enum FixtureRules {
    static let race = """
        {
          rules: [
            { name: "expire-first", match: { role: "business" }, when: { times: 1 },
              actions: [{ respond: { status: 401, headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' } } }] },
            { name: "hold-refresh", phase: "response", match: { role: "refresh" },
              actions: [{ hold: { name: "refresh-response", timeout: 10, onTimeout: "release" } }] },
          ],
        }
        """

    /// Rules/auth-profile.json5 of the Faultline checkout this package sits in.
    static func profile() throws -> String {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: repository.appendingPathComponent("Rules/auth-profile.json5"), encoding: .utf8)
    }

    static func withProfile() throws -> TestProxy.Rules {
        .files(["auth-profile.json5": try profile(), "race.json5": race])
    }

    /// The auth profile alone: lineages are followed, nothing is changed.
    static func profileOnly() throws -> TestProxy.Rules {
        .files(["auth-profile.json5": try profile()])
    }
}
