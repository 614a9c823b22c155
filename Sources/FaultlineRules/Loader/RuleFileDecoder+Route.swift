import FaultlineConfig
import FaultlineCore

/// `route`: a URL naming the whole destination, or an object changing some of its parts.
extension RuleFileDecoder {
    static let routeKeys = ["scheme", "host", "port", "pathPrefix"]
    static let routeExamples = #""http://127.0.0.1:8081" or "https://stub.local:8443/prefix""#

    func route(_ node: ConfigNode) -> RouteTarget? {
        switch node.kind {
        case .string(let text):
            return diagnostics.attempt { try Self.routeURL(text, at: node) }
        case .object:
            return routeParts(node)
        default:
            diagnostics.report(
                ConfigError.mismatch(
                    "'route'",
                    expected:
                        "a URL such as \(Self.routeExamples), or an object such as { host: \"stub.local\", port: 8081 }",
                    found: node))
            return nil
        }
    }

    /// `scheme://host[:port][/prefix]`, as `--mode reverse:URL` takes it: http or https, a host (an IPv6
    /// address in brackets, RFC 3986 §3.2.2), a port (default: the scheme's) and a path prefix
    /// (default: none); no user info, query or fragment.
    private static func routeURL(_ text: String, at node: ConfigNode) throws(ConfigError) -> RouteTarget {
        let expected = "a URL such as \(routeExamples)"
        let parts = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ConfigError.mismatch("'route'", expected: expected, found: node) }
        let scheme = parts[0].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw ConfigError(
                "'route' must use http:// or https://, found scheme '\(parts[0])' in \(node.foundDescription): "
                    + "write \(expected)",
                at: node.location)
        }
        let rest = parts[1]
        let authority = rest.prefix { $0 != "/" }
        if authority.contains("@") || rest.contains("?") || rest.contains("#") {
            throw ConfigError(
                "'route' names a scheme, a host, a port and a path prefix only (no user info, query or fragment), "
                    + "found \(node.foundDescription): write \(expected)",
                at: node.location)
        }
        var hostText = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            if let close = authority.firstIndex(of: "]") {
                hostText = authority[...close]
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { hostText = authority }
            }
        } else if let colon = authority.firstIndex(of: ":") {
            guard authority[authority.index(after: colon)...].allSatisfy({ $0 != ":" }) else {
                throw ConfigError(
                    "an IPv6 address in 'route' goes in brackets, as in \"http://[::1]:8081\", found \(node.foundDescription)",
                    at: node.location)
            }
            hostText = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostText.isEmpty else {
            throw ConfigError(
                "'route' needs a host, found \(node.foundDescription): write \(expected)", at: node.location)
        }
        guard let host = routeHost(hostText) else {
            throw ConfigError(
                "bad host '\(hostText)' in 'route': a host name or IP address (RFC 3986 §3.2.2), as in \(routeExamples)",
                at: node.location)
        }
        var port = scheme == "https" ? 443 : 80
        if let portText {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portText),
                (1...65535).contains(number)
            else {
                throw ConfigError(
                    "the port in 'route' must be a number from 1 to 65535, found '\(portText)' in \(node.foundDescription)",
                    at: node.location)
            }
            port = number
        }
        let path = rest[authority.endIndex...]
        guard URISyntax.isStrictPath(path) else {
            throw ConfigError(
                "bad path prefix '\(path)' in 'route': only RFC 3986 path characters and %XX escapes may appear (a space is %20)",
                at: node.location)
        }
        return RouteTarget(scheme: scheme, host: host, port: port, pathPrefix: normalizedPrefix(path))
    }

    /// `{ scheme?, host?, port?, pathPrefix? }`: the parts given replace the request's own.
    private func routeParts(_ node: ConfigNode) -> RouteTarget? {
        // `path` is reported on its own: "did you mean" finds nothing near it, and it is the likely slip.
        guard
            let reader = diagnostics.object(
                node, name: "'route'", context: "'route'", allowed: Self.routeKeys + ["path"])
        else {
            return nil
        }
        if let path = reader.member("path") {
            diagnostics.report(
                "'route' has no 'path': 'pathPrefix' is put before the request's path; to replace the path, use rewrite: { path }",
                at: path.keyLocation)
        }
        if reader.members.isEmpty {
            diagnostics.report(
                "'route' changes nothing: give 'scheme', 'host', 'port' or 'pathPrefix', or a URL such as \(Self.routeExamples)",
                at: node.location)
            return nil
        }
        var target = RouteTarget()
        if let value = reader.node("scheme") {
            target.scheme = diagnostics.attempt { try value.choice("'scheme'", of: ["http", "https"]) }
        }
        if let value = reader.node("host") {
            target.host = diagnostics.attempt {
                let text = try value.string("'host'")
                guard let host = Self.routeHost(Substring(text)) else {
                    throw ConfigError.mismatch(
                        "'host'", expected: #"a host name or IP address, such as "stub.local", "127.0.0.1" or "::1""#,
                        found: value)
                }
                return host
            }
        }
        target.port = diagnostics.optional { try reader.int("port", in: 1...65535) }
        if let value = reader.node("pathPrefix") {
            target.pathPrefix = diagnostics.attempt {
                let path = try value.string("'pathPrefix'")
                guard path.hasPrefix("/"), URISyntax.isStrictPath(path) else {
                    throw ConfigError.mismatch(
                        "'pathPrefix'",
                        expected:
                            #"a path such as "/api": '/' first, then RFC 3986 path characters and %XX escapes (no '?' or '#')"#,
                        found: value)
                }
                return Self.normalizedPrefix(Substring(path))
            }
        }
        return target
    }

    /// The host without brackets, or nil when it is neither a reg-name (RFC 3986 §3.2.2: unreserved,
    /// sub-delims and `%XX`) nor an IPv6 address, bracketed or not. (A URL's unbracketed host never
    /// holds a `:`: the URL form splits the port off first and refuses a second `:`.)
    private static func routeHost(_ text: Substring) -> String? {
        if text.hasPrefix("[") {
            guard text.hasSuffix("]"), text.count > 2 else { return nil }
            let inner = text.dropFirst().dropLast()
            return isIPv6(inner) ? String(inner) : nil
        }
        if text.contains(":") { return isIPv6(text) ? String(text) : nil }
        guard !text.isEmpty, text.utf8.allSatisfy(URISyntax.isRegNameByte), URISyntax.hasValidPercentEncoding(text.utf8)
        else { return nil }
        return String(text)
    }

    /// Hex digits, `:` and `.` (an embedded IPv4 address), with at least two colons: the shape of
    /// an RFC 4291 §2.2 address. Zones (RFC 6874) are not taken: a rule names a remote server.
    private static func isIPv6(_ text: Substring) -> Bool {
        text.utf8.filter { $0 == 0x3A }.count >= 2
            && text.utf8.allSatisfy { HexDigit.value($0) != nil || $0 == 0x3A || $0 == 0x2E }
    }

    /// A path prefix without its trailing `/`s: `/api/` and `/api` put the same text before a
    /// request's path, and `/` alone puts none (`""`).
    private static func normalizedPrefix(_ path: Substring) -> String {
        var prefix = path
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        return String(prefix)
    }
}
