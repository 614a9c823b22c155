public import Synchronization

/// The rules and the auth profile a proxy consults for every flow, shared by all sessions: what
/// the driver answers the flows' `RuleQuestion`s with.
///
/// It wraps the pure `RuleEngine` and the `LineageTracker` (both thread-safe) and remembers the
/// last raw Set-Cookie per cookie name so `setCookie: { replay }` can re-send an old session's
/// cookie. Reloading swaps the rule set in place, so sessions already running see new rules on
/// their next flow.
public final class FlowPolicy: FlowRules {
    public let engine: RuleEngine
    /// Bodies larger than this are not read for rules or the profile (they stream unread);
    /// `BodyReadLimit.bytes` unless a test asks for less.
    public let bodyLimit: Int
    private let profileState: Mutex<(profile: AuthProfile?, tracker: LineageTracker?, readsBodies: Bool)>
    private let fingerprint: @Sendable (String, String) -> String
    public let cookies = CookieMemory()
    /// Listeners outside the engine that wait for flow events (holds released by an event); the
    /// server keeps it current. With none, and no rule condition on a flow stage, sessions do not
    /// report stages at all.
    public let externalEventListeners = Atomic<Int>(0)

    /// True when someone needs to hear that a flow reached a stage.
    public var wantsFlowEvents: Bool {
        engine.observesFlowEvents || externalEventListeners.load(ordering: .relaxed) > 0
    }

    /// `fingerprint` names a secret for the trace; see `LineageTracker.init(profile:naming:)`.
    public convenience init(
        ruleSet: RuleSet, bodyLimit: Int = BodyReadLimit.bytes, fingerprint: @escaping @Sendable (String) -> String
    ) {
        self.init(ruleSet: ruleSet, bodyLimit: bodyLimit, naming: { secret, _ in fingerprint(secret) })
    }

    /// `naming` turns a secret and its kind (`access`, `refresh`, `session`) into what the trace
    /// writes for it: `TraceRecorder.fingerprint(_:kind:)`.
    public init(
        ruleSet: RuleSet, bodyLimit: Int = BodyReadLimit.bytes,
        naming fingerprint: @escaping @Sendable (_ secret: String, _ kind: String) -> String
    ) {
        self.engine = RuleEngine(ruleSet: ruleSet)
        self.bodyLimit = bodyLimit
        self.fingerprint = fingerprint
        self.profileState = Mutex(Self.profileState(ruleSet.profile, fingerprint: fingerprint))
    }

    /// Swaps in a reloaded rule set. Lineages are kept unless the profile changed.
    public func replace(_ ruleSet: RuleSet) {
        engine.replaceRuleSet(ruleSet)
        profileState.withLock { state in
            guard state.profile != ruleSet.profile else { return }
            state = Self.profileState(ruleSet.profile, fingerprint: fingerprint)
        }
    }

    private static func profileState(
        _ profile: AuthProfile?, fingerprint: @escaping @Sendable (String, String) -> String
    ) -> (profile: AuthProfile?, tracker: LineageTracker?, readsBodies: Bool) {
        (
            profile, profile.map { LineageTracker(profile: $0, naming: fingerprint) },
            profile?.readsRequestBodies ?? false
        )
    }

    /// The lineage tracker of the current profile, if one is loaded.
    public var tracker: LineageTracker? { profileState.withLock { $0.tracker } }

    /// True when the request body must be read before the request-phase decision: a rule looks at
    /// it, a rule duplicates requests (copies need the whole body), or the profile reads it.
    /// Asked for every flow, so it reads precomputed flags only.
    public var needsRequestBody: Bool {
        engine.needsRequestBody || engine.duplicatesRequests || profileState.withLock { $0.readsBodies }
    }

    public var needsRequestBodyAtResponse: Bool { engine.needsRequestBodyAtResponse }

    public var decidesRequests: Bool { engine.hasRules(in: .request) || tracker != nil }

    public var decidesResponses: Bool { engine.hasRules(in: .response) || engine.replaysCookies }

    /// Answers a flow's question (see `RuleQuestion`).
    public func answer(_ question: RuleQuestion) -> RuleAnswer {
        switch question {
        case .request(let view):
            return .request(decideRequest(view))
        case .response(let view, let setCookies, let reservesLineage):
            return .response(decideResponse(view, setCookies: setCookies, reservesLineage: reservesLineage))
        }
    }

    /// Classifies the request, finds its lineage and evaluates request-phase rules (atomically).
    public func decideRequest(_ view: FlowView) -> RequestDecision {
        let tracker = self.tracker
        var view = view
        let identity = tracker?.identify(view)
        view.role = identity?.role ?? FlowRole.business
        view.lineage = identity?.lineage
        return RequestDecision(
            role: view.role, credentials: identity?.credentials ?? [], lineage: view.lineage,
            fired: engine.evaluate(view, phase: .request),
            tracksLineage: tracker != nil)
    }

    /// Remembers the response's cookies (when a rule replays cookies), evaluates response-phase
    /// rules, reads the cookies they replay, and numbers a login's lineage when asked.
    public func decideResponse(_ view: FlowView, setCookies: [String], reservesLineage: Bool) -> ResponseDecision {
        if engine.replaysCookies { cookies.remember(setCookieValues: setCookies) }
        let fired = engine.hasRules(in: .response) ? engine.evaluate(view, phase: .response) : []
        var replayed: [String: String] = [:]
        for rule in fired {
            for case .setCookie(.replay(let name)) in rule.actions {
                replayed[name] = cookies.lastSetCookie(named: name)
            }
        }
        return ResponseDecision(
            fired: fired, reservedLineage: reservesLineage ? tracker?.reserveLineage() : nil, replayedCookies: replayed)
    }
}
