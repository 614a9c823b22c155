public import FaultlineRules
public import FaultlineTrace

extension LineageEvent {
    /// The trace event kind (`lineage.login`...).
    public var traceKind: TraceEventKind { TraceEventKind(rawValue: name) }

    /// `lineage`, then the credential lists as `kind=fp:…` strings (fingerprints only), then the
    /// after-logout flag where the event has one.
    public var traceFields: [TraceField] {
        var fields: [TraceField] = [.string("lineage", lineage.description)]
        func add(_ key: String, _ credentials: [Credential]) {
            fields.append(.strings(key, credentials.map(\.traceText)))
        }
        switch self {
        case .login(_, let issued):
            add("issued", issued)
        case .refresh(_, let presented, let replaced, let issued, let afterLogout):
            add("presented", presented)
            add("replaced", replaced)
            add("issued", issued)
            fields.append(.bool("after_logout", afterLogout))
        case .logout(_, let presented):
            add("presented", presented)
        case .revoked(_, let revoked, let afterLogout):
            add("revoked", revoked)
            fields.append(.bool("after_logout", afterLogout))
        case .credentialIssued(_, let issued, let afterLogout):
            add("issued", issued)
            fields.append(.bool("after_logout", afterLogout))
        case .unknownRefresh(_, let presented, let issued):
            add("presented", presented)
            add("issued", issued)
        }
        return fields
    }
}

extension Credential {
    /// `access=fp:…`: the same fingerprint the redacted header or cookie shows.
    var traceText: String { "\(kind.rawValue)=\(fingerprint)" }
}
