import FaultlineCore

/// Follows credential lineages from traffic, driven by the auth profile (Rules/README.md, "The
/// auth profile").
///
/// Call order for one flow: `identify` (or `role(of:)`, `presentedCredentials(in:)` and
/// `lineage(of:)`) when the request is ready, `requestSent` when it is forwarded upstream, and
/// `responseCompleted` when the response has arrived (with its body when a response location
/// reads the body). Each returns the `lineage.*` events to trace.
///
/// A `revoke` request (RFC 7009 §2.1) presents its `token` form field as a credential, placed
/// `form token`, besides whatever the request locations find. Its kind is the one its
/// `token_type_hint` names (`access_token`, `refresh_token`) when it has one; else the kind the
/// value was issued as, when a lineage was issued it; else `unknownRevocationKind`. A 2xx answer
/// to it is `lineage.revoked` for the lineage owning the token.
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
    public convenience init(profile: AuthProfile, fingerprint: @escaping @Sendable (String) -> String) {
        self.init(profile: profile, naming: { secret, _ in fingerprint(secret) })
    }

    /// `naming` turns a raw credential and its kind (`access`, `refresh`, `session`) into a
    /// stable, non-reversible token: the trace's keyed hash prefix, or a capture's pseudonym,
    /// which the kind names when the capture has not seen the secret yet. Called from any thread.
    public init(profile: AuthProfile, naming: @escaping @Sendable (_ secret: String, _ kind: String) -> String) {
        self.profile = profile
        extractor = CredentialExtractor(
            requestLocations: profile.requestCredentials, responseLocations: profile.responseCredentials,
            fingerprint: naming)
        state = StateLock(TrackerState(classifier: RoleClassifier(profile: profile)))
    }

    /// The kind a revoked token is traced as when the request gives no hint and no lineage was
    /// ever issued the value (the proxy started after the login, or a rule made the token up):
    /// `refresh`, because RFC 7009 §2 makes refresh-token revocation the case every server must
    /// support (access tokens only "SHOULD"), so that is what such a request most likely names.
    /// No lineage owns the value either way, so no `lineage.revoked` follows.
    public static let unknownRevocationKind = CredentialKind.refresh

    /// The request's role: `login`, `refresh`, `logout`, `revoke` (checked in that order), then
    /// custom roles in profile order, else `business`. Body matches need the body in the view.
    public func role(of request: FlowView) -> String {
        state.withLock { $0.classifier.role(of: request) }
    }

    /// The credentials the request presents at the profile's request locations that apply to its
    /// role (and a revocation's token), fingerprinted.
    public func presentedCredentials(in request: FlowView) -> [Credential] {
        identify(request).credentials
    }

    /// The lineage owning any of these credentials (the newest if several), including closed
    /// lineages and credentials they have since replaced; nil when none is known.
    public func lineage(of credentials: [Credential]) -> LineageID? {
        state.withLock { $0.book.lineage(of: credentials) }
    }

    /// Role, presented credentials and lineage of a request in one call: what the proxy puts in
    /// the `FlowView` it hands the rule engine.
    public func identify(_ request: FlowView) -> RequestIdentity {
        let role = self.role(of: request)
        // Extracted (and fingerprinted) outside the lock; only the book's answers need it.
        let found = extractor.presented(in: request, role: role)
        let token = role == FlowRole.revoke ? extractor.revocationToken(in: request) : nil
        return state.withLock { tracker in
            var credentials = found
            // A location the profile writes for the token wins: its kind is the user's word.
            if let token, !found.contains(where: { $0.fingerprint == token.fingerprint }) {
                let kind = token.hint ?? tracker.book.kind(of: token.fingerprint) ?? Self.unknownRevocationKind
                credentials.append(
                    Credential(kind: kind, place: CredentialExtractor.revocationPlace, fingerprint: token.fingerprint))
            }
            return RequestIdentity(role: role, credentials: credentials, lineage: tracker.book.lineage(of: credentials))
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
    /// a 2xx revocation reports the revoked token's lineage (RFC 7009 §2.2: 200 also for a
    /// token that was already invalid); any other response issuing credentials to a request of
    /// a lineage adds them to it.
    ///
    /// `reservedLineage` is the lineage `reserveLineage()` numbered for this login, if any.
    public func responseCompleted(
        role: String, requestCredentials: [Credential], status: Int, headers: [(name: String, value: String)],
        body: [UInt8]?, reservedLineage: LineageID? = nil
    ) -> [LineageEvent] {
        let issued = extractor.issued(headers: headers, body: body)
        let succeeded = (200...299).contains(status)
        let revoked =
            succeeded && role == FlowRole.revoke
            ? requestCredentials.filter { $0.place == CredentialExtractor.revocationPlace } : []
        guard !issued.isEmpty || !revoked.isEmpty else { return [] }
        return state.withLock { tracker in
            let revocation = tracker.book.revocationSucceeded(revoked: revoked)
            guard !issued.isEmpty else { return revocation }
            if succeeded, role == FlowRole.login {
                return tracker.book.loginSucceeded(issued: issued, reserved: reservedLineage)
            }
            if succeeded, role == FlowRole.refresh {
                return tracker.book.refreshSucceeded(presented: requestCredentials, issued: issued)
            }
            return revocation + tracker.book.credentialsIssued(presented: requestCredentials, issued: issued)
        }
    }

    /// Numbers the lineage the login whose 2xx response head just arrived will start, so that its
    /// credentials can be named after it before the response completes (a capture's pseudonyms).
    /// Pass it to `responseCompleted(…reservedLineage:)`.
    public func reserveLineage() -> LineageID {
        state.withLock { $0.book.reserve() }
    }

    /// Every lineage so far, in order, with its newest credential of each kind.
    public func lineages() -> [LineageInfo] {
        state.withLock { $0.book.infos() }
    }
}
