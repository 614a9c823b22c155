public import FaultlineHTTP1

/// Where a listener sends the requests it receives.
public enum ProxyMode: Sendable, Equatable, CustomStringConvertible {
    /// An HTTP forward proxy: clients send absolute-form requests (`GET http://host/path`) and `CONNECT`.
    case forward
    /// A reverse proxy in front of one fixed upstream: clients send origin-form requests (`GET /path`).
    case reverse(UpstreamEndpoint)

    /// Parses the command line's spelling: `forward` or `reverse:http://host:port`.
    public init(parsing text: String) throws(ProxyConfigurationError) {
        if text == "forward" {
            self = .forward
            return
        }
        let prefix = "reverse:"
        guard text.hasPrefix(prefix) else {
            throw ProxyConfigurationError("unknown mode '\(text)': expected 'forward' or 'reverse:http(s)://HOST:PORT'")
        }
        self = .reverse(try UpstreamEndpoint(url: String(text.dropFirst(prefix.count))))
    }

    public var description: String {
        switch self {
        case .forward: return "forward"
        case .reverse(let endpoint): return "reverse:\(endpoint)"
        }
    }
}
