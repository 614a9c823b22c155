/// Gives a request its role from the auth profile: `login`, `refresh`, `logout` checked in that
/// order, then the custom roles in profile order, else `business`. Two roles on one endpoint
/// (OAuth's `/token` with `grant_type=password` or `refresh_token`, RFC 6749 §4.3, §6) are told
/// apart by their body matches, so the body must have been read.
///
/// Not Sendable (compiled regular expressions); the tracker keeps it under its lock.
struct RoleClassifier {
    private let ordered: [(role: String, matcher: FlowMatcher)]

    init(profile: AuthProfile?) {
        guard let profile else {
            ordered = []
            return
        }
        var ordered: [(String, FlowMatcher)] = []
        if let login = profile.login { ordered.append((FlowRole.login, FlowMatcher(login))) }
        if let refresh = profile.refresh { ordered.append((FlowRole.refresh, FlowMatcher(refresh))) }
        if let logout = profile.logout { ordered.append((FlowRole.logout, FlowMatcher(logout))) }
        for (name, match) in profile.roles { ordered.append((name, FlowMatcher(match))) }
        self.ordered = ordered
    }

    func role(of request: FlowView) -> String {
        var facts = FlowFacts(request)
        for (role, matcher) in ordered where matcher.matches(&facts, ignoringRole: true) { return role }
        return FlowRole.business
    }
}
