public import FaultlineRules

/// How a held flow ends.
public enum HoldOutcome: Sendable, Equatable {
    /// Continue the flow; with a response, answer that instead of what the flow would have sent.
    case release(SyntheticResponse?)
    /// Fail the flow: the client connection is reset.
    case fail
    /// The hold's deadline passed: apply its `onTimeout`.
    case timeout
}
