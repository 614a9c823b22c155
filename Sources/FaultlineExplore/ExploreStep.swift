/// One thing the scheduler can let go: a selected flow's request waiting to go upstream, or its
/// response head waiting to reach the client. The proxy holds it until the scheduler picks it.
public struct ExploreStep: Sendable, Equatable {
    /// Which side of the flow waits.
    public enum Phase: String, Sendable, Codable {
        /// The request, before it goes upstream.
        case request
        /// The response head, before it reaches the client.
        case response
    }

    /// The hold's ID: what the driver releases.
    public let id: UInt64
    public let flow: UInt64
    public let connection: UInt64
    public let phase: Phase
    /// `GET /v1/messages`: the request line without the query, as people and interleaving
    /// hashes name the step (flow IDs differ between runs, this does not).
    public let request: String

    public init(id: UInt64, flow: UInt64, connection: UInt64, phase: Phase, request: String) {
        self.id = id
        self.flow = flow
        self.connection = connection
        self.phase = phase
        self.request = request
    }

    /// `request GET /v1/messages`, `response POST /oauth/token`.
    public var label: String { "\(phase.rawValue) \(request)" }
}
