public import FaultlineCore

/// One request/response exchange (or one tunnel) as the proxy sees it.
///
/// A flow is what the trace's `flow` field names. Rules (a later layer) will act on flows: holds,
/// delays and synthetic responses are phases of a flow, not special code paths in the codec.
public struct Flow: Sendable, Equatable {
    /// How the flow uses the connection.
    public enum Kind: String, Sendable {
        /// An ordinary request and response.
        case exchange
        /// `CONNECT`: after the 200, bytes are relayed unchanged.
        case connect
        /// A request with `Upgrade` (WebSocket): after a 101, bytes are relayed unchanged.
        case upgrade
    }

    /// Where the flow stands.
    public enum Phase: String, Sendable {
        case connectingUpstream
        case forwarding
        case awaitingResponse
        case streamingResponse
        case tunnelling
        case finished
        case aborted
    }

    public let id: FlowID
    public let clientConnection: ConnectionID
    public var kind: Kind
    public var endpoint: UpstreamEndpoint
    public var phase: Phase
    public var method: String
    /// Status sent to the client, once known.
    public var responseStatus: Int?

    public init(id: FlowID, clientConnection: ConnectionID, kind: Kind, endpoint: UpstreamEndpoint, method: String) {
        self.id = id
        self.clientConnection = clientConnection
        self.kind = kind
        self.endpoint = endpoint
        self.phase = .connectingUpstream
        self.method = method
    }
}
