public import FaultlineCore
public import FaultlineRules

/// What the rules that fired on a flow's request ask for, folded into one plan the session follows
/// in a fixed order: fault, hold, delay, then respond or forward (with duplicates and throttling).
///
/// The loader already refuses contradictory rules within one file; across files the first rule
/// (file order) wins for single-valued parts (respond, hold, fault, route), delays add up, the
/// slowest throttle applies and request rewrites apply in turn.
public struct RequestPlan: FiredActionFolding, Sendable, Equatable {
    public var fault: TransportFault?
    /// The HTTP/2 error code the fault's rule gave, if any.
    public var faultCode: HTTP2ErrorCode?
    public var respond: SyntheticResponse?
    public var hold: HoldSpec?
    public var delay: Duration = .zero
    public var duplicate: DuplicateSpec?
    public var throttle: Int?
    /// Request rewrites, in firing order: each applies to what the ones before it made.
    public var rewrites: [RequestRewrite] = []
    /// Where to send the request instead of its own upstream; the first rule's wins.
    public var route: RouteTarget?

    public init() {}

    /// Folds the actions of request-phase rules, in firing order.
    public init(_ fired: [FiredRule]) {
        for action in fired.flatMap(\.actions) where !foldShared(action) {
            switch action {
            case .duplicate(let spec): if duplicate == nil { duplicate = spec }
            case .rewriteRequest(let rewrite): rewrites.append(rewrite)
            case .route(let target): if route == nil { route = target }
            default: break  // response-phase actions; the loader keeps them out
            }
        }
    }

    /// True when nothing changes the flow.
    public var isEmpty: Bool { self == RequestPlan() }
}

/// What the rules that fired on a flow's response ask for, applied in a fixed order: fault,
/// hold, delay, then respond (replacing the response) or rewrite + cookies, with throttling.
public struct ResponsePlan: FiredActionFolding, Sendable, Equatable {
    public var fault: TransportFault?
    /// The HTTP/2 error code the fault's rule gave, if any.
    public var faultCode: HTTP2ErrorCode?
    public var respond: SyntheticResponse?
    public var hold: HoldSpec?
    public var delay: Duration = .zero
    public var rewrites: [ResponseRewrite] = []
    public var setCookies: [SetCookieSpec] = []
    public var stripCookies: [String] = []
    public var throttle: Int?

    public init() {}

    /// Folds the actions of response-phase rules, in firing order.
    public init(_ fired: [FiredRule]) {
        for action in fired.flatMap(\.actions) where !foldShared(action) {
            switch action {
            case .rewrite(let rewrite): rewrites.append(rewrite)
            case .setCookie(let spec): setCookies.append(spec)
            case .stripCookie(let name): stripCookies.append(name)
            default: break  // request-phase actions; the loader keeps them out
            }
        }
    }

    /// True when the whole upstream body must be read before anything is sent (a JSON edit).
    public var needsWholeBody: Bool { respond == nil && rewrites.contains(where: \.needsBody) }

    /// True when the upstream body is replaced, so its bytes are read and dropped.
    public var replacesBody: Bool { respond != nil || rewrites.contains { $0.body != nil } }

    public var isEmpty: Bool { self == ResponsePlan() }
}

/// The parts both plans fold the same way, so a fault, response, hold, delay or throttle means the
/// same in either phase.
protocol FiredActionFolding {
    var fault: TransportFault? { get set }
    var faultCode: HTTP2ErrorCode? { get set }
    var respond: SyntheticResponse? { get set }
    var hold: HoldSpec? { get set }
    var delay: Duration { get set }
    var throttle: Int? { get set }
}

extension FiredActionFolding {
    /// Folds `action` if it is one the phases share and returns true; false leaves it to the plan.
    /// Single-valued parts keep the first rule's value, delays add up, the slowest throttle applies.
    mutating func foldShared(_ action: RuleAction) -> Bool {
        switch action {
        case .fault(let fault, let code):
            if self.fault == nil {
                self.fault = fault
                faultCode = code
            }
        case .respond(let response): if respond == nil { respond = response }
        case .hold(let spec): if hold == nil { hold = spec }
        case .delay(let duration): delay += duration
        case .throttle(let rate): throttle = min(throttle ?? rate, rate)
        default: return false
        }
        return true
    }
}
