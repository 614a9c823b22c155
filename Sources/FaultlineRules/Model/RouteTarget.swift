/// Where a `route` action sends a request instead of its own upstream (mitmproxy calls this
/// "map remote"). Each nil part keeps the request's own; a URL written in a rule file
/// (`route: "http://127.0.0.1:8081"`) names a whole destination, so it sets every part.
public struct RouteTarget: Sendable, Equatable {
    /// `http` or `https`, lowercase.
    public var scheme: String?
    /// A DNS name or an IP address; an IPv6 address is stored without its brackets.
    public var host: String?
    /// 1...65535. A URL without a port gives its scheme's default (80 or 443).
    public var port: Int?
    /// Put before the request's path, in place of the request's own upstream prefix (a reverse
    /// proxy's `/api`): `""` (no prefix) or `/`-led without a trailing `/`, RFC 3986 path
    /// characters only. A URL without a path gives `""`.
    public var pathPrefix: String?

    public init(scheme: String? = nil, host: String? = nil, port: Int? = nil, pathPrefix: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
    }
}
