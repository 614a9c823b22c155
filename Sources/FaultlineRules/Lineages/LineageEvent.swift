/// A step of a credential lineage (Rules/README.md, "The auth profile"), traced as a `lineage.*`
/// event. Carries fingerprints only.
public enum LineageEvent: Sendable, Equatable, CustomStringConvertible {
    /// A 2xx login response issued credentials: lineage `L` starts with them.
    case login(LineageID, issued: [Credential])
    /// A 2xx refresh response: `presented` are the request's credentials, `replaced` the
    /// lineage's credentials the `issued` ones took over from. `afterLogout`: the lineage was
    /// already closed (a late refresh response); the credentials still join it so later use of
    /// them is recognised as this lineage's.
    case refresh(LineageID, presented: [Credential], replaced: [Credential], issued: [Credential], afterLogout: Bool)
    /// A logout presenting a credential of `L` was sent: `L` is closed from now on.
    case logout(LineageID, presented: [Credential])
    /// A response to a request of `L` issued credentials that `L` did not hold (a rotated
    /// session cookie), or any credentials at all once `L` is closed (`afterLogout`).
    case credentialIssued(LineageID, issued: [Credential], afterLogout: Bool)
    /// A 2xx answer to an RFC 7009 revocation of `revoked`, credentials of `L`. `afterLogout`:
    /// `L` was already closed (a client cleaning up tokens that arrived after its logout).
    case revoked(LineageID, revoked: [Credential], afterLogout: Bool)
    /// A 2xx refresh whose refresh credential no lineage owns (the proxy started after the
    /// login, or the client invented one): its credentials start a new lineage `L`.
    case unknownRefresh(LineageID, presented: [Credential], issued: [Credential])

    /// The lineage the event is about.
    public var lineage: LineageID {
        switch self {
        case .login(let id, _), .logout(let id, _), .credentialIssued(let id, _, _), .unknownRefresh(let id, _, _),
            .revoked(let id, _, _):
            return id
        case .refresh(let id, _, _, _, _):
            return id
        }
    }

    /// The trace event name: `lineage.login`, `lineage.refresh`, `lineage.logout`,
    /// `lineage.revoked`, `lineage.credential-issued`, `lineage.unknown-refresh`.
    public var name: String {
        switch self {
        case .login: return "lineage.login"
        case .refresh: return "lineage.refresh"
        case .logout: return "lineage.logout"
        case .revoked: return "lineage.revoked"
        case .credentialIssued: return "lineage.credential-issued"
        case .unknownRefresh: return "lineage.unknown-refresh"
        }
    }

    public var description: String {
        func list(_ credentials: [Credential]) -> String {
            "[" + credentials.map(\.description).joined(separator: ", ") + "]"
        }
        switch self {
        case .login(let id, let issued):
            return "\(name) \(id) issued=\(list(issued))"
        case .refresh(let id, let presented, let replaced, let issued, let afterLogout):
            return "\(name) \(id) presented=\(list(presented)) replaced=\(list(replaced)) issued=\(list(issued))"
                + (afterLogout ? " after-logout" : "")
        case .logout(let id, let presented):
            return "\(name) \(id) presented=\(list(presented))"
        case .revoked(let id, let revoked, let afterLogout):
            return "\(name) \(id) revoked=\(list(revoked))" + (afterLogout ? " after-logout" : "")
        case .credentialIssued(let id, let issued, let afterLogout):
            return "\(name) \(id) issued=\(list(issued))" + (afterLogout ? " after-logout" : "")
        case .unknownRefresh(let id, let presented, let issued):
            return "\(name) \(id) presented=\(list(presented)) issued=\(list(issued))"
        }
    }
}
