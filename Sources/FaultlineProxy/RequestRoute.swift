public import FaultlineFlow
public import FaultlineHTTP1

/// Where a request goes and how its request line is rewritten, decided from the listener's mode
/// and the request-target form (RFC 9112 §3.2).
public struct RequestRoute: Sendable, Equatable {
    public let kind: FlowKind
    public let endpoint: UpstreamEndpoint
    /// The request-target to send upstream: origin-form (or `*`); empty for CONNECT.
    public let outboundTarget: String
    /// The request's URL as an absolute URL, for the trace.
    public let url: String
    /// The path without the query, for the trace and rules.
    public let path: String
    /// The raw query without `?`, for rules.
    public var query: String? = nil

    /// A request the proxy refuses before contacting anyone.
    public struct Refusal: Error, Sendable, Equatable {
        public let status: Int
        public let code: String
        public let message: String
    }

    /// Decides the route of `head`; throws a refusal with the status to answer. A forward proxy's
    /// session passes the endpoint of its previous request as `previous`: when this request is for
    /// the same origin, the route carries that endpoint instead of an equal new one.
    public static func decide(
        _ head: HTTPRequestHead, mode: ProxyMode, previous: UpstreamEndpoint? = nil
    ) throws(Refusal) -> RequestRoute {
        let target: RequestTarget
        do {
            target = try RequestTarget.parse(head.target, method: head.method)
        } catch {
            throw Refusal(status: error.status, code: error.code, message: error.description)
        }
        let upgrade = HopByHopHeaders.isWebSocketUpgrade(head.headers)
        switch (mode, target) {
        case (.forward, .absolute(let scheme, let authority, let path, let query)):
            // RFC 9112 §3.2.2: absolute-form names the origin. Most clients reach an https one
            // through CONNECT, but one that sends `GET https://…` to the proxy (or `:scheme https`
            // over HTTP/2) gets it fetched over TLS from here, as mitmproxy and squid do.
            guard scheme == "http" || scheme == "https" else {
                throw Refusal(
                    status: 501, code: "unsupported-scheme",
                    message: "\(scheme):// in a request line is not supported; only http:// and https:// are")
            }
            let port = authority.port ?? UpstreamEndpoint.defaultPort(of: scheme)
            let endpoint =
                if let previous, previous.isPlain(scheme: scheme, host: authority.host, port: port) {
                    previous
                } else {
                    UpstreamEndpoint(scheme: scheme, host: authority.host, port: port)
                }
            return route(upgrade ? .upgrade : .exchange, endpoint, path: path, query: query)
        case (.forward, .authority(let authority)):
            let endpoint = UpstreamEndpoint(scheme: "tcp", host: authority.host, port: authority.port ?? 443)
            return RequestRoute(
                kind: .connect, endpoint: endpoint, outboundTarget: "", url: head.target, path: "")
        case (.forward, .origin), (.forward, .asterisk):
            throw Refusal(
                status: 400, code: "origin-form-to-forward-proxy",
                message: "this listener is a forward proxy: send absolute-form requests (GET http://host/path) "
                    + "or start it with --mode reverse:URL")
        case (.reverse(let endpoint), .origin(let path, let query)),
            (.reverse(let endpoint), .absolute(_, _, let path, let query)):
            // RFC 9112 §3.2.2: a server must accept absolute-form; only the path and query go upstream.
            return route(upgrade ? .upgrade : .exchange, endpoint, path: path, query: query)
        case (.reverse(let endpoint), .asterisk):
            return RequestRoute(
                kind: .exchange, endpoint: endpoint, outboundTarget: "*", url: "\(endpoint.origin)*", path: "*")
        case (.reverse, .authority):
            throw Refusal(
                status: 501, code: "connect-in-reverse-mode",
                message: "CONNECT is not available on a reverse-mode listener")
        }
    }

    private static func route(
        _ kind: FlowKind, _ endpoint: UpstreamEndpoint, path: String, query: String?
    ) -> RequestRoute {
        // A reverse upstream's path prefix goes before the client's path (`/api` + `/v1/me`);
        // rules keep matching the path the client sent.
        let target = endpoint.pathPrefix + (query.map { "\(path)?\($0)" } ?? path)
        let authority = endpoint.hostHeaderValue
        return RequestRoute(
            kind: kind, endpoint: endpoint, outboundTarget: target,
            url: "\(endpoint.scheme)://\(authority)\(target)", path: path, query: query)
    }
}
