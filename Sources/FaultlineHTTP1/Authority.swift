/// The `host [ ":" port ]` part of a URI (RFC 3986 §3.2), as in a Host field, an absolute-form
/// request-target or a CONNECT authority-form target.
public struct Authority: Sendable, Equatable, CustomStringConvertible {
    /// The host as written: a registered name, an IPv4 address, or an IPv6 address without its brackets.
    public var host: String
    /// The port, or nil when none was written.
    public var port: Int?

    public init(host: String, port: Int? = nil) {
        self.host = host
        self.port = port
    }

    /// `host[:port]`, with brackets around an IPv6 host, ready for a Host field or a CONNECT target.
    public var description: String {
        let shownHost = host.utf8.contains(ASCII.colon) ? "[\(host)]" : host
        guard let port else { return shownHost }
        return "\(shownHost):\(port)"
    }

    /// Parses `text` as `host [ ":" port ]`; returns nil when it is not one, or when `portRequired`
    /// and no port is written. The host must be non-empty; user info (`user@host`) is refused
    /// (RFC 9110 §4.2.4).
    public static func parse(_ text: String, portRequired: Bool = false) -> Authority? {
        var copy = text
        return copy.withUTF8 { bytes in
            guard let parsed = TargetParser.parseAuthority(bytes, 0, bytes.count, portRequired: portRequired) else {
                return nil
            }
            return Authority(
                host: ASCII.string(bytes, parsed.host.lowerBound, parsed.host.upperBound), port: parsed.port)
        }
    }
}
