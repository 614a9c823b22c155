import FaultlineCore

/// Follows credential lineages from traffic, driven by the auth profile (DESIGN.md §2).
///
/// Call order for one flow: `identify` (or `role(of:)`, `presentedCredentials(in:)` and
/// `lineage(of:)`) when the request is ready, `requestSent` when it is forwarded upstream, and
/// `responseCompleted` when the response has arrived (with its body when a response location
/// reads the body). Each returns the `lineage.*` events to trace.
///
/// Thread-safe: flows on every event loop call it; one lock guards the lineage book and the
/// compiled role matchers. Never stores a raw credential: values are fingerprinted by the
/// injected function as they are extracted.
public final class LineageTracker: Sendable {
    public let profile: AuthProfile
    private let extractor: CredentialExtractor
    private let state: StateLock<TrackerState>

    private struct TrackerState {
        let classifier: RoleClassifier
        var book = LineageBook()
    }

    /// `fingerprint` turns a raw credential into a stable, non-reversible token (the trace's
    /// keyed hash prefix); it is called from any thread.
    public init(profile: AuthProfile, fingerprint: @escaping @Sendable (String) -> String) {
        self.profile = profile
        extractor = CredentialExtractor(
            requestLocations: profile.requestCredentials, responseLocations: profile.responseCredentials,
            fingerprint: fingerprint)
        state = StateLock(TrackerState(classifier: RoleClassifier(profile: profile)))
    }

    /// The request's role: `login`, `refresh`, `logout` (checked in that order), then custom
    /// roles in profile order, else `business`. Body matches need the body in the view.
    public func role(of request: FlowView) -> String {
        state.withLock { $0.classifier.role(of: request) }
    }

    /// The credentials the request presents at the profile's request locations, fingerprinted.
    public func presentedCredentials(in request: FlowView) -> [Credential] {
        extractor.presented(in: request)
    }

    /// The lineage owning any of these credentials (the newest if several), including closed
    /// lineages and credentials they have since replaced; nil when none is known.
    public func lineage(of credentials: [Credential]) -> LineageID? {
        state.withLock { $0.book.lineage(of: credentials) }
    }

    /// Role, presented credentials and lineage of a request in one call: what the proxy puts in
    /// the `FlowView` it hands the rule engine.
    public func identify(_ request: FlowView) -> RequestIdentity {
        let credentials = extractor.presented(in: request)
        return state.withLock { tracker in
            RequestIdentity(
                role: tracker.classifier.role(of: request), credentials: credentials,
                lineage: tracker.book.lineage(of: credentials))
        }
    }

    /// Call when a request has been forwarded upstream. A logout closes its lineage here, at
    /// send time: the logout boundary starts when the logout is sent, not when it is answered.
    public func requestSent(role: String, credentials: [Credential]) -> [LineageEvent] {
        guard role == FlowRole.logout else { return [] }
        return state.withLock { $0.book.logoutSent(presented: credentials) }
    }

    /// Call when a response has arrived (with its body when the profile reads response
    /// bodies). A 2xx login issuing credentials starts a lineage; a 2xx refresh moves its
    /// lineage on (or starts one, `unknownRefresh`, when its refresh credential is unknown);
    /// any other response issuing credentials to a request of a lineage adds them to it.
    public func responseCompleted(
        role: String, requestCredentials: [Credential], status: Int, headers: [(name: String, value: String)],
        body: [UInt8]?
    ) -> [LineageEvent] {
        let issued = extractor.issued(headers: headers, body: body)
        guard !issued.isEmpty else { return [] }
        let succeeded = (200...299).contains(status)
        return state.withLock { tracker in
            if succeeded, role == FlowRole.login { return tracker.book.loginSucceeded(issued: issued) }
            if succeeded, role == FlowRole.refresh {
                return tracker.book.refreshSucceeded(presented: requestCredentials, issued: issued)
            }
            return tracker.book.credentialsIssued(presented: requestCredentials, issued: issued)
        }
    }

    /// Every lineage so far, in order, with its newest credential of each kind.
    public func lineages() -> [LineageInfo] {
        state.withLock { $0.book.infos() }
    }
}
