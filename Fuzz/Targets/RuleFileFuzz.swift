import FaultlineRules

/// The JSON5 rule loader: the input as a scenario file (checked against no profile and against
/// a fixed one, so `role` and `scope: "lineage"` checks run) and as an auth profile.
enum RuleFileFuzz {
    static let file = "rules/scenario.json5"
    static let profileFile = "rules/auth-profile.json5"

    /// A profile with a custom role, for the scenario checks that need one.
    static let profile: AuthProfile? = {
        let text = """
            {
              login: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "password" } } },
              refresh: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "refresh_token" } } },
              logout: { method: "POST", path: "/logout" },
              roles: { callback: { method: "POST", path: "/jobs/*/complete" } },
              credentials: {
                request: [{ header: "Authorization", scheme: "Bearer", kind: "access" }],
                response: [{ json: "/access_token", kind: "access" }],
              },
            }
            """
        let (profile, errors) = RuleSetLoader.loadProfile(text: text, file: profileFile)
        fuzzCheck(errors.isEmpty, "the fixed profile does not load: \(errors)")
        return profile
    }()

    static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let bytes = text.utf8.count
        let (bare, bareErrors) = RuleSetLoader.loadScenario(text: text, file: file)
        ConfigErrorCheck.check(loaded: bare != nil, errors: bareErrors, file: file, textBytes: bytes)
        let (withProfile, profileErrors) = RuleSetLoader.loadScenario(text: text, file: file, profile: profile)
        ConfigErrorCheck.check(loaded: withProfile != nil, errors: profileErrors, file: file, textBytes: bytes)
        let (loadedProfile, errors) = RuleSetLoader.loadProfile(text: text, file: profileFile)
        ConfigErrorCheck.check(loaded: loadedProfile != nil, errors: errors, file: profileFile, textBytes: bytes)
        // A scenario and profile that load become an engine, as the proxy would start one.
        if let withProfile {
            _ = RuleEngine(ruleSet: RuleSet(scenarios: [withProfile], profile: profile))
        }
    }
}
