public import FaultlineCore

/// What a connection's framing keeps between the flows it carries, beyond the socket: an HTTP/2
/// upstream's session (HPACK tables, stream IDs, windows). The pool keeps it with the connection;
/// only the event loop that owns the connection touches it.
public protocol UpstreamConnectionState: AnyObject, Sendable {}

/// What the driver tells a session about the upstream connection it got.
public struct UpstreamConnectionInfo: Sendable, Equatable {
    public let id: ConnectionID
    /// The address connected to, e.g. `127.0.0.1:8080`.
    public let remoteAddress: String
    /// True when the connection came from the keep-alive pool.
    public let reused: Bool
    /// The protocol TLS negotiated by ALPN (RFC 7301), e.g. "h2"; nil without TLS or ALPN
    /// (HTTP/1.1).
    public let applicationProtocol: String?
    /// The framing's state carried over from earlier flows on this connection, or put there
    /// for them (an HTTP/2 session); nil for HTTP/1.1, which keeps none.
    public let state: (any UpstreamConnectionState)?

    public init(
        id: ConnectionID, remoteAddress: String, reused: Bool, applicationProtocol: String? = nil,
        state: (any UpstreamConnectionState)? = nil
    ) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.reused = reused
        self.applicationProtocol = applicationProtocol
        self.state = state
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.remoteAddress == rhs.remoteAddress && lhs.reused == rhs.reused
            && lhs.applicationProtocol == rhs.applicationProtocol && lhs.state === rhs.state
    }
}

/// Why the proxy could not get an upstream response; each maps to the status answered to the client.
public struct UpstreamFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable code for the trace, e.g. `connect-refused`.
    public let code: String
    /// 502 when the upstream could not be reached or spoke nonsense, 504 when it was too slow.
    public let status: Int
    /// One sentence for the trace and the error page.
    public let description: String

    public init(code: String, status: Int, description: String) {
        self.code = code
        self.status = status
        self.description = description
    }

    public static func dnsFailure(_ host: String, _ reason: String) -> Self {
        .init(code: "dns-failure", status: 502, description: "cannot resolve \(host): \(reason)")
    }
    public static func connectRefused(_ target: String, _ reason: String) -> Self {
        .init(code: "connect-failed", status: 502, description: "cannot connect to \(target): \(reason)")
    }
    public static func connectTimeout(_ target: String) -> Self {
        .init(code: "connect-timeout", status: 504, description: "timed out connecting to \(target)")
    }
    public static func responseTimeout(_ target: String) -> Self {
        .init(code: "response-timeout", status: 504, description: "\(target) sent no response head in time")
    }
    public static func closedBeforeResponse(_ target: String) -> Self {
        .init(code: "upstream-closed", status: 502, description: "\(target) closed the connection before responding")
    }
}
