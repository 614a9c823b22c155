import Foundation

/// An absolute `http` or `https` URL split into the parts replay matches on (RFC 3986 §3).
public struct RecordedURL: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var scheme: String
    /// Lowercased; IPv6 literals without brackets.
    public var host: String
    public var port: Int
    /// The path as sent (percent-encoding kept), `/` when empty.
    public var path: String
    /// The raw query without `?`, nil when there was none.
    public var query: String?

    public init(scheme: String, host: String, port: Int, path: String, query: String?) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
        self.path = path.isEmpty ? "/" : path
        self.query = query
    }

    /// Parses `scheme://host[:port]/path?query` (a fragment is dropped); nil for anything else.
    public init?(_ text: String) {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = text[separator.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let afterAuthority = rest[authorityEnd...]
        let defaultPort = scheme == "https" ? 443 : 80
        var host = Substring(authority)
        var port = defaultPort
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":"), let number = Int(after.dropFirst()) { port = number }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]) else { return nil }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        var path = afterAuthority
        var query: Substring?
        if let mark = afterAuthority.firstIndex(of: "?") {
            path = afterAuthority[..<mark]
            query = afterAuthority[afterAuthority.index(after: mark)...]
        }
        self.init(scheme: scheme, host: String(host), port: port, path: String(path), query: query.map(String.init))
    }

    /// `scheme://host[:port]`, the port left out when it is the scheme's default.
    public var origin: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(bracketed)" : "\(scheme)://\(bracketed):\(port)"
    }

    /// The origin-form target: path and query.
    public var target: String { query.map { "\(path)?\($0)" } ?? path }

    public var description: String { origin + target }
}
