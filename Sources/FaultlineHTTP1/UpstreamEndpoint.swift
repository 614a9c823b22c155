/// An origin server the proxy connects to: scheme, host and port, and for a reverse proxy the
/// path prefix the upstream's API lives under.
///
/// It is also the key of the upstream connection pool: requests to equal endpoints may share a
/// kept-alive connection.
public struct UpstreamEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The fields live in one immutable object: an endpoint is copied about ten times a forwarded
    /// request (the route, the flow, the pool, the links), and a copy of its five strings retained
    /// each one (Benchmarks/README.md, "Where the retains come from").
    private final class Storage: Sendable {
        let scheme: String
        let host: String
        let port: Int
        let connectHost: String?
        let hostHeaderValue: String
        let pathPrefix: String
        /// The host and the port hashed once with this process's seed: the pool and the links
        /// hash an endpoint several times a request.
        let hostAndPortHash: Int

        init(
            scheme: String, host: String, port: Int, connectHost: String?, hostHeaderValue: String, pathPrefix: String
        ) {
            self.scheme = scheme
            self.host = host
            self.port = port
            self.connectHost = connectHost
            self.hostHeaderValue = hostHeaderValue
            self.pathPrefix = pathPrefix
            var hasher = Hasher()
            hasher.combine(host)
            hasher.combine(port)
            hostAndPortHash = hasher.finalize()
        }
    }

    private let storage: Storage

    public var scheme: String { storage.scheme }
    /// A DNS name or an IP literal; IPv6 literals are stored without brackets. The name requests
    /// are for: it goes in `Host`, in SNI and in the certificate check, and rules match it.
    public var host: String { storage.host }
    public var port: Int { storage.port }
    /// Where to connect when that is not `host`: a client may `CONNECT` to an address and name the
    /// host only in its ClientHello (SNI); the intercepted requests are then for the SNI name, sent
    /// to the address the client chose. Nil: connect to `host`.
    public var connectHost: String? { storage.connectHost }
    /// `host[:port]` as a Host header carries it: the port is left out when it is the scheme's
    /// default, IPv6 literals get their brackets back (RFC 9110 §7.2). Computed once: every
    /// forwarded request needs it.
    public var hostHeaderValue: String { storage.hostHeaderValue }
    /// What a reverse proxy puts before every request's path: `/api` for `http://host/api`, so
    /// `/v1/me` goes upstream as `/api/v1/me`. Empty (the default) or `/`-led without a trailing
    /// `/`. Rules and the trace's `path` see the path as the client sent it; the trace's `url` is
    /// the upstream URL, prefix included.
    public var pathPrefix: String { storage.pathPrefix }

    /// `pathPrefix` must be empty or start with `/`; a trailing `/` is dropped.
    public init(scheme: String, host: String, port: Int, connectHost: String? = nil, pathPrefix: String = "") {
        precondition(pathPrefix.isEmpty || pathPrefix.hasPrefix("/"), "a path prefix starts with '/'")
        // Made for every forwarded request: the common case (a lowercase scheme, no prefix) only
        // reads its inputs and makes the one object, and the Host value is put together from its
        // pieces (a result of up to 15 bytes, such as `127.0.0.1:36963`, stays inline).
        let scheme = scheme.utf8.contains(where: { ASCII.lowercased($0) != $0 }) ? scheme.lowercased() : scheme
        var prefix = Substring(pathPrefix)
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        let bracketed = host.utf8.contains(UInt8(ascii: ":")) ? "[" + host + "]" : host
        storage = Storage(
            scheme: scheme, host: host, port: port, connectHost: connectHost,
            hostHeaderValue: port == Self.defaultPort(of: scheme) ? bracketed : bracketed + ":" + String(port),
            pathPrefix: prefix.endIndex == pathPrefix.endIndex ? pathPrefix : String(prefix))
    }

    /// Parses `http://host[:port][/prefix]` or `https://host[:port][/prefix]`: the path, if any,
    /// becomes `pathPrefix` (a trailing `/` is dropped). A query, a fragment or user info is refused.
    public init(url: String) throws(ProxyConfigurationError) {
        let expected =
            "expected an upstream URL such as http://127.0.0.1:9000, http://127.0.0.1:9000/api or https://api.example.test"
        let parts = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw ProxyConfigurationError("'\(url)' is not a URL: \(expected)")
        }
        let scheme = parts[0].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw ProxyConfigurationError("unsupported upstream scheme '\(scheme)' in '\(url)': \(expected)")
        }
        let rest = parts[1]
        let authority = rest.prefix { $0 != "/" }
        let path = rest[authority.endIndex...]
        guard !authority.isEmpty, !authority.contains("@"), !rest.contains("?"), !rest.contains("#") else {
            throw ProxyConfigurationError("'\(url)' must name only a host, a port and a path prefix: \(expected)")
        }
        guard let (host, port) = Self.splitAuthority(String(authority), defaultPort: Self.defaultPort(of: scheme))
        else {
            if let colon = authority.lastIndex(of: ":"), case let digits = authority[authority.index(after: colon)...],
                !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber })
            {
                throw ProxyConfigurationError("port \(digits) is out of range 1-65535 in '\(url)': \(expected)")
            }
            throw ProxyConfigurationError("bad host or port in '\(url)': \(expected)")
        }
        guard TargetParser.isStrictPath(path) else {
            throw ProxyConfigurationError(
                "bad path prefix '\(path)' in '\(url)': only RFC 3986 path characters and %XX escapes may appear")
        }
        self.init(scheme: scheme, host: host, port: port, pathPrefix: String(path))
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

    // Written out rather than synthesized: the pool and the upstream links look an endpoint up
    // several times per request, and the synthesized versions hash and compare all five strings,
    // `hostHeaderValue` included, which follows from the others. The hash takes the host and the
    // port only (equal endpoints have equal ones; endpoints that differ in nothing else are rare),
    // worked out when the endpoint is made.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.port == rhs.port && lhs.host == rhs.host && lhs.scheme == rhs.scheme
                && lhs.connectHost == rhs.connectHost && lhs.pathPrefix == rhs.pathPrefix)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.hostAndPortHash)
    }

    /// Whether this is the endpoint `init(scheme:host:port:)` would make from these: a forward
    /// proxy's client usually sends request after request to one origin, and its session keeps
    /// the last endpoint rather than make an equal one for each (`RequestRoute.decide`).
    public func isPlain(scheme: String, host: String, port: Int) -> Bool {
        port == storage.port && storage.connectHost == nil && storage.pathPrefix.isEmpty && host == storage.host
            && scheme == storage.scheme
    }

    /// The host to resolve and connect to: `connectHost`, else `host`.
    public var dialHost: String { connectHost ?? host }

    /// The default port of the scheme (80 for http, 443 for https).
    public var defaultPort: Int { Self.defaultPort(of: scheme) }

    public static func defaultPort(of scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// `scheme://host:port` without the path prefix.
    public var origin: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// `scheme://host:port` and the path prefix: the form `init(url:)` reads back.
    public var description: String { origin + pathPrefix }
}
