public import FaultlineHTTP1

/// A request as the framing layer hands it to the flow core: where it goes and what it says, with
/// no wire details (no request line, no framing fields).
public struct FlowRequest: Sendable, Equatable {
    public var kind: FlowKind
    public var method: String
    /// Where the request goes; a `route` rule may change it.
    public var endpoint: UpstreamEndpoint
    /// The path as the client sent it, without the query: rules match it and the trace shows it.
    public var path: String
    /// The raw query without `?`, nil when the target had none.
    public var query: String?
    /// The target to send upstream (origin-form, the endpoint's path prefix included; or `*`).
    public var outboundTarget: String
    /// The request's URL for the trace.
    public var url: String
    /// The client's protocol version as the trace names it (`HTTP/1.1`).
    public var version: String
    /// The fields as the client sent them (rules and the trace see these; the upstream codec drops
    /// hop-by-hop fields when it encodes).
    public var headers: HTTPHeaders
    /// What goes upstream as the request's authority (`Host`, `:authority`).
    public var authority: String
    public var body: FlowBodyLength
    /// The HTTP/2 stream the request came on (RFC 9113 §5.1.1); nil for HTTP/1.
    public var stream: Int32?

    public init(
        kind: FlowKind, method: String, endpoint: UpstreamEndpoint, path: String, query: String?,
        outboundTarget: String,
        url: String, version: String, headers: HTTPHeaders, authority: String, body: FlowBodyLength,
        stream: Int32? = nil
    ) {
        self.kind = kind
        self.method = method
        self.endpoint = endpoint
        self.path = path
        self.query = query
        self.outboundTarget = outboundTarget
        self.url = url
        self.version = version
        self.headers = headers
        self.authority = authority
        self.body = body
        self.stream = stream
    }
}

/// How long a message body is, as far as the flow core needs to know.
public enum FlowBodyLength: Sendable, Equatable {
    /// No body at all (a GET, a HEAD response, a 204).
    case none
    /// Exactly this many bytes.
    case known(Int64)
    /// Bytes until the message ends (chunked, close-delimited, an HTTP/2 stream without length).
    case unknown

    /// True when the message may carry body bytes.
    public var carriesBody: Bool {
        switch self {
        case .none: return false
        case .known(let length): return length > 0
        case .unknown: return true
        }
    }
}
