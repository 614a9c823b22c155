/// An origin server the proxy connects to: scheme, host and port.
///
/// It is also the key of the upstream connection pool: requests to equal endpoints may share a
/// kept-alive connection.
public struct UpstreamEndpoint: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    /// A DNS name or an IP literal; IPv6 literals are stored without brackets. The name requests
    /// are for: it goes in `Host`, in SNI and in the certificate check, and rules match it.
    public let host: String
    public let port: Int
    /// Where to connect when that is not `host`: a client may `CONNECT` to an address and name the
    /// host only in its ClientHello (SNI); the intercepted requests are then for the SNI name, sent
    /// to the address the client chose. Nil: connect to `host`.
    public let connectHost: String?
    /// `host[:port]` as a Host header carries it: the port is left out when it is the scheme's
    /// default, IPv6 literals get their brackets back (RFC 9110 §7.2). Computed once: every
    /// forwarded request needs it.
    public let hostHeaderValue: String

    public init(scheme: String, host: String, port: Int, connectHost: String? = nil) {
        self.scheme = scheme.lowercased()
        self.host = host
        self.port = port
        self.connectHost = connectHost
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.hostHeaderValue = port == Self.defaultPort(of: self.scheme) ? bracketed : "\(bracketed):\(port)"
    }

    /// Parses `http://host[:port]` or `https://host[:port]` (a trailing `/` is allowed, a path is not).
    public init(url: String) throws(ProxyConfigurationError) {
        let expected = "expected an upstream URL such as http://127.0.0.1:9000 or https://api.example.test"
        let parts = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw ProxyConfigurationError("'\(url)' is not a URL: \(expected)")
        }
        let scheme = parts[0].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw ProxyConfigurationError("unsupported upstream scheme '\(scheme)' in '\(url)': \(expected)")
        }
        var rest = parts[1]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else {
            throw ProxyConfigurationError("'\(url)' must name only a host and port: \(expected)")
        }
        guard let (host, port) = Self.splitAuthority(String(rest), defaultPort: Self.defaultPort(of: scheme)) else {
            if let colon = rest.lastIndex(of: ":"), case let digits = rest[rest.index(after: colon)...], !digits.isEmpty,
                digits.allSatisfy({ $0.isASCII && $0.isNumber })
            {
                throw ProxyConfigurationError("port \(digits) is out of range 1-65535 in '\(url)': \(expected)")
            }
            throw ProxyConfigurationError("bad host or port in '\(url)': \(expected)")
        }
        self.init(scheme: scheme, host: host, port: port)
    }

    /// Splits `host`, `host:port`, `[v6]` or `[v6]:port`; nil when the port is not a number in 1...65535.
    static func splitAuthority(_ authority: String, defaultPort: Int) -> (String, Int)? {
        var host = Substring(authority)
        var portText: Substring? = nil
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        guard let portText else { return (String(host), defaultPort) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }

    /// The host to resolve and connect to: `connectHost`, else `host`.
    public var dialHost: String { connectHost ?? host }

    /// The default port of the scheme (80 for http, 443 for https).
    public var defaultPort: Int { Self.defaultPort(of: scheme) }

    static func defaultPort(of scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    public var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}
