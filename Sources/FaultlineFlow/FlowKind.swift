/// How a flow uses its connection.
public enum FlowKind: String, Sendable {
    /// An ordinary request and response.
    case exchange
    /// `CONNECT`: after the 200, bytes are relayed unchanged.
    case connect
    /// A request with `Upgrade` (WebSocket): after a 101, bytes are relayed unchanged.
    case upgrade
}
