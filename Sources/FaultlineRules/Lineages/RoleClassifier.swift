/// Gives a request its role from the auth profile: `login`, `refresh`, `logout`, `revoke` checked
/// in that order, then the custom roles in profile order, else `business`; a role whose matches
/// are a list is the request's when any of them matches. Two roles on one endpoint (OAuth's
/// `/token` with `grant_type=password` or `refresh_token`, RFC 6749 §4.3, §6) are told apart by
/// their body matches, so the body must have been read.
///
/// Not Sendable (compiled regular expressions); the tracker keeps it under its lock.
struct RoleClassifier {
    private let ordered: [(role: String, matchers: [FlowMatcher])]

    init(profile: AuthProfile?) {
        ordered = (profile?.orderedRoles ?? []).map { ($0.name, $0.matches.map(FlowMatcher.init)) }
    }

    func role(of request: FlowView) -> String {
        var facts = FlowFacts(request)
        for (role, matchers) in ordered where matchers.contains(where: { $0.matches(&facts, ignoringRole: true) }) {
            return role
        }
        return FlowRole.business
    }
}
