import FaultlineHTTP1
import FaultlinePosix

/// The checks a control call passes before any route sees it, beyond the bearer token: that the
/// `Host` names this listener, and, for the web UI, the session cookie and the `Origin`.
///
/// Why `Host`: a page on another site can make a browser resolve its own name to 127.0.0.1 (DNS
/// rebinding) and then talk to the control listener as a same-origin page of that name. The
/// browser still sends the attacker's name in `Host`, so a loopback listener answers only to
/// loopback names (`localhost`, 127.0.0.0/8, `::1`). A listener on another address (`--control
/// 10.0.0.5:9090`) also answers to that address; one on a wildcard (`0.0.0.0`, `::`) cannot know
/// the names it is reached by and leaves `Host` unchecked (its warning at start says the token is
/// then all that guards it).
struct ControlGate: Sendable {
    /// The name of the web UI's session cookie for a listener reached as `host`: cookies are per
    /// host and not per port (RFC 6265 §8.5), so the port is in the name, and two proxies on one
    /// machine keep their sessions apart. (`Path=/ui` keeps it off everything but UI paths.)
    static func sessionCookieName(host: String?) -> String {
        let port = host.flatMap { host in host.lastIndex(of: ":").map { host[host.index(after: $0)...] } }
        guard let port, !port.isEmpty, port.allSatisfy(\.isNumber) else { return "faultline_ui" }
        return "faultline_ui_" + port
    }

    let listenerAddress: SocketAddress

    /// True when `host` (a `Host` field value, port included) may reach this listener; a request
    /// without `Host` (HTTP/1.0 scripts) is not a browser's and passes.
    func allowsHost(_ host: String?) -> Bool {
        guard let host else { return true }
        if listenerAddress.isWildcard { return true }
        guard let name = Self.hostName(host) else { return false }
        if name.lowercased() == "localhost" { return true }
        guard let address = try? SocketAddress(ipAddress: name, port: 0) else { return false }
        return address.isLoopback || address.ipAddress == listenerAddress.ipAddress
    }

    /// The name or address of a `Host` value without its port or IPv6 brackets (RFC 9110 §7.2);
    /// nil when it is malformed.
    static func hostName(_ host: String) -> String? {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            return String(host[host.index(after: host.startIndex)..<close])
        }
        let name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return name.isEmpty ? nil : String(name)
    }

    /// True when a state-changing call comes from a page of this listener: its `Origin` is
    /// `http://` and the `Host` it was sent to. Browsers send `Origin` on every `fetch` that is
    /// not a GET or HEAD (Fetch standard, "origin header"), so its absence means no page of ours.
    static func isSameOrigin(_ headers: HTTPHeaders) -> Bool {
        guard let origin = headers.first(name: "origin"), let host = headers.first(name: "host") else { return false }
        return origin.lowercased() == "http://" + host.lowercased()
    }

    /// The value of cookie `name` in the `Cookie` fields (RFC 6265 §5.4: `name=value` pairs
    /// joined by `; `), or nil.
    static func cookie(_ name: String, in headers: HTTPHeaders) -> Substring? {
        for field in headers.values(name: "cookie") {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return trimmed[trimmed.index(after: equals)...]
            }
        }
        return nil
    }
}

extension SocketAddress {
    /// True for `0.0.0.0` and `::`, which listen on every address of the machine.
    var isWildcard: Bool {
        switch self {
        case .v4(let v4): v4.address == 0
        case .v6(let v6): v6.high == 0 && v6.low == 0
        }
    }
}
