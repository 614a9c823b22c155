import FaultlineConfig

/// What the loader knows about the auth profile next to a scenario, which decides the role names
/// a scenario may use (in `match.role` and in event references) and whether `scope: "lineage"`
/// can work.
enum ProfileKnowledge {
    /// No `auth-profile.json5`: every request is `business`.
    case absent
    /// The profile file has errors of its own; role checks are skipped so one mistake is not
    /// reported again in every scenario.
    case broken
    case loaded(AuthProfile)

    /// The roles the proxy always knows about, whatever the profile says.
    static let builtInRoles = [FlowRole.login, FlowRole.refresh, FlowRole.logout, FlowRole.revoke, FlowRole.business]

    /// Nil when `role` can occur, otherwise a message saying why not (with a suggestion).
    func problem(withRole role: String) -> String? {
        switch self {
        case .broken:
            return nil
        case .absent:
            if role == "business" { return nil }
            if Self.builtInRoles.contains(role) {
                return "role '\(role)' needs an auth profile: add auth-profile.json5 to the rules folder"
            }
            return
                "unknown role '\(role)'\(ConfigError.didYouMean(role, in: Self.builtInRoles)); without an auth profile every request is 'business'"
        case .loaded(let profile):
            let defined = Self.definedRoles(of: profile)
            if defined.contains(role) { return nil }
            if Self.builtInRoles.contains(role) {
                return "role '\(role)' is not defined in the auth profile (\(profile.file))"
            }
            let known = defined.map { "'\($0)'" }.joined(separator: ", ")
            return "unknown role '\(role)'\(ConfigError.didYouMean(role, in: defined)); the known roles are \(known)"
        }
    }

    /// The profile's roles, in the order the proxy checks them, then `business`.
    static func definedRoles(of profile: AuthProfile) -> [String] {
        profile.orderedRoles.map(\.name) + [FlowRole.business]
    }

    /// A warning when `role` is valid but cannot mean what it says: without a profile every
    /// request is `business`, so a rule that matches on it or waits for it applies to every
    /// request, login and logout included. `use` says how the file uses it ("'role: \"business\"'
    /// matches every request"). Nil otherwise.
    func warning(withRole role: String, _ use: String) -> String? {
        guard isAbsent, role == FlowRole.business else { return nil }
        return "\(use): without an auth profile every request is 'business', login and logout included; "
            + "add auth-profile.json5 to the rules folder"
    }

    var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }
}
