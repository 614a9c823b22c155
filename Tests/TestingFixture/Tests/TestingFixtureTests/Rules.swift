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

    /// The Faultline checkout this package sits in.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The checkout's Rules folder, as README's `.faultline(rules: "Rules")` reads it.
    static let folder = repository.appendingPathComponent("Rules").path

    /// Rules/auth-profile.json5 of the Faultline checkout this package sits in.
    static func profile() throws -> String {
        try String(contentsOf: repository.appendingPathComponent("Rules/auth-profile.json5"), encoding: .utf8)
    }

    /// A download's response held until the test lets it go (or its client goes away).
    static let heldDownload = """
        {
          rules: [
            { name: "hold-download", phase: "response", match: { method: "POST", path: "/jobs/*/download" },
              actions: [{ hold: { name: "download-response", timeout: 10, onTimeout: "release" } }] },
          ],
        }
        """

    /// A pipeline contract: `write` commits, and a mark `cancel job=N` cancels job N.
    static let pipelineContract = """
        {
          steps: [
            { name: "download", match: { method: "POST", path: "/jobs/{job}/download" } },
            { name: "write", match: { method: "POST", path: "/jobs/{job}/write" } },
          ],
          cancel: { mark: "cancel", key: "job" },
          commit: ["write"],
        }
        """

    /// ``pipelineContract`` decoded; the fixture's own text, so a failure is a fixture bug.
    static var pipeline: Contract {
        let (contract, errors) = ContractLoader.load(text: pipelineContract, file: "pipeline.json5")
        precondition(errors.isEmpty, "\(errors)")
        return contract!
    }

    /// A completion the app runs itself, once per job: its step marks are the only deliveries.
    static var completion: Contract {
        let (contract, errors) = ContractLoader.load(
            text: #"{ callbacks: [{ name: "complete", key: "job" }] }"#, file: "completion.json5")
        precondition(errors.isEmpty, "\(errors)")
        return contract!
    }

    /// The race rules with the profile, for traits (an attribute cannot throw: a missing profile
    /// leaves the profile out, and the tests that need it fail on the unchecked clauses).
    static let raceRules: TestProxy.Rules = .files(["auth-profile.json5": (try? profile()) ?? "{}", "race.json5": race])

    /// The held download, for traits.
    static let downloadRules: TestProxy.Rules = .files(["download.json5": heldDownload])

    static func withProfile() throws -> TestProxy.Rules {
        .files(["auth-profile.json5": try profile(), "race.json5": race])
    }

    /// The auth profile alone: lineages are followed, nothing is changed.
    static func profileOnly() throws -> TestProxy.Rules {
        .files(["auth-profile.json5": try profile()])
    }
}
