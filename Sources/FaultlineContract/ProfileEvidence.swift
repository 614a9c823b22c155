import FaultlineTrace

/// What a trace says about the auth profile, so the clauses that need lineages (single-flight-refresh,
/// no-stale-refresh, logout-boundary, no-reactivation) are either judged or skipped with a reason
/// that is true: "no auth profile in this trace" is not "a profile was loaded, but no login was seen".
///
/// A lineage in the trace (from a `lineage.*` event or a request's `lineage`) means the clauses can
/// be judged; single-flight-refresh can also judge refresh requests of no known lineage (by their
/// refresh credential). Otherwise the reason comes from the strongest evidence: `rules.loaded` /
/// `rules.reloaded` say whether a profile was loaded (`profile`); a request role other than
/// `business`, or presented `credentials`, prove one was (without a profile every request is
/// `business` and none has credentials); a request without any `role` was recorded by a proxy
/// running without rules. A trace written before `rules.loaded` existed may say neither, and the
/// reason says so.
struct ProfileEvidence {
    /// The `profile` field of `rules.loaded` / `rules.reloaded`: nil when no such event had it,
    /// true when any said a profile was loaded (it was, for part of the trace at least).
    private var announced: Bool?
    private var sawRequest = false
    private var sawRole = false
    private var sawProfileRole = false
    private var sawCredentials = false
    /// A refresh presenting a refresh credential: single-flight-refresh can compare those.
    private var sawRefresh = false
    private var loginRequests = 0

    /// `rules.loaded` or `rules.reloaded`.
    mutating func rulesEvent(_ event: TraceEvent) {
        guard let profile = event.bool("profile") else { return }
        announced = (announced ?? false) || profile
    }

    /// A client request.
    mutating func request(_ request: ClientRequest) {
        sawRequest = true
        if !request.credentials.isEmpty { sawCredentials = true }
        guard let role = request.role else { return }
        sawRole = true
        if role != "business" { sawProfileRole = true }
        if role == "login" { loginRequests += 1 }
        if role == "refresh", request.credential(ofKind: "refresh") != nil { sawRefresh = true }
    }

    /// Why `clause` (one that needs lineages) cannot be judged on a trace with `lineages`
    /// lineages; nil when it can.
    func skipReason(_ clause: ClauseID, lineages: Int) -> String? {
        guard lineages == 0, !(clause == .singleFlightRefresh && sawRefresh) else { return nil }
        if announced == true || sawProfileRole || sawCredentials {
            if loginRequests > 0 {
                let logins = loginRequests == 1 ? "1 login request was" : "\(loginRequests) login requests were"
                return "an auth profile was loaded and \(logins) seen, but no login succeeded, so no lineage started"
            }
            if sawCredentials {
                return
                    "an auth profile was loaded, but no login was seen (requests presented credentials issued before this trace), so no lineage started"
            }
            return "an auth profile was loaded, but no login was seen, so no lineage started"
        }
        if announced == false {
            return
                "no auth profile in this trace: the proxy's rules had none (add auth-profile.json5 to the rules folder)"
        }
        if sawRole {
            return
                "no login was seen, and this trace does not say whether an auth profile was loaded (no rules.loaded event: an older Faultline wrote it)"
        }
        if sawRequest {
            return
                "no auth profile in this trace: the proxy ran without rules (run it with --rules DIR holding an auth-profile.json5)"
        }
        return "the trace has no request and no lineage event to judge"
    }
}
