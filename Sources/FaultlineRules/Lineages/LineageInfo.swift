/// One lineage as the control API lists it.
public struct LineageInfo: Sendable, Equatable {
    public let id: LineageID
    /// False once a logout presenting one of its credentials was sent.
    public let isOpen: Bool
    /// The newest credential of each kind, in `CredentialKind` order.
    public let credentials: [Credential]
}

/// What the tracker makes of a request, in one call: see `LineageTracker.identify(_:)`.
public struct RequestIdentity: Sendable, Equatable {
    public let role: String
    public let credentials: [Credential]
    public let lineage: LineageID?
}
