/// What the flow core may read of the rules without asking: which inputs they need, as flags
/// (`FlowPolicy` keeps them precomputed, and they change only on a reload). Everything the rules
/// decide goes through a `RuleQuestion` the driver answers; nothing here evaluates a rule.
public protocol FlowRules: AnyObject, Sendable {
    /// Bodies larger than this are not read for rules or the profile (they stream unread).
    var bodyLimit: Int { get }
    /// The request body must be read before the request-phase decision: a rule looks at it, a
    /// rule duplicates requests (copies need the whole body), or the profile reads it.
    var needsRequestBody: Bool { get }
    /// A response-phase rule matches on the request body: keep a copy until the response.
    var needsRequestBodyAtResponse: Bool { get }
    /// The request phase has anything to decide (a profile to classify by, or request rules).
    var decidesRequests: Bool { get }
    /// The response phase has anything to decide (response rules, or cookies to remember).
    var decidesResponses: Bool { get }
    /// Someone needs to hear that a flow reached a stage (a rule condition, a hold's release).
    var wantsFlowEvents: Bool { get }
}
