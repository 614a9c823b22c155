/// Removes the header fields that describe one connection rather than the message
/// (RFC 9110 §7.6.1), before a message is forwarded on another connection.
public enum HopByHopHeaders {
    /// Whether `name` is a field that is always connection-specific, ignoring ASCII case.
    /// `Proxy-Connection` and `Keep-Alive` are pre-standard but common (RFC 9112 §C.2.2 / RFC 9110
    /// §7.6.1); `Proxy-Authorization`, `Proxy-Authenticate` and `Proxy-Authentication-Info`
    /// address this proxy, not the origin (RFC 9110 §11.7). `Transfer-Encoding` and
    /// `Content-Length` are rewritten from the framing.
    ///
    /// Every forwarded field is asked, so the length picks the one or two names to compare, in
    /// place: comparing each field with the whole list was 7% of the session's instructions.
    static func isAlwaysRemoved(_ name: String) -> Bool {
        // A field name is a native String, so its UTF-8 is read in place, not copied.
        var name = name
        return name.withUTF8 { bytes in
            func named(_ lowercaseName: StaticString) -> Bool {
                ASCII.equalsIgnoringCase(bytes, 0, bytes.count, lowercaseName)
            }
            switch bytes.count {
            case 2: return named("te")
            case 7: return named("upgrade") || named("trailer")
            case 10: return named("connection") || named("keep-alive")
            case 14: return named("content-length")
            case 16: return named("proxy-connection")
            case 17: return named("transfer-encoding")
            case 18: return named("proxy-authenticate")
            case 19: return named("proxy-authorization")
            case 25: return named("proxy-authentication-info")
            default: return false
            }
        }
    }

    /// The headers to forward: without hop-by-hop fields nor the fields named by `Connection`.
    /// `Content-Length`/`Transfer-Encoding` are removed too; callers add them back from the framing.
    public static func removing(from headers: HTTPHeaders) -> HTTPHeaders {
        // On the hot path: names are compared in place, and the Connection list is read only
        // when there is one.
        let named = headers.contains(name: "connection") ? headers.tokens(inField: "connection") : []
        func isRemoved(_ field: HTTPHeaders.Field) -> Bool {
            isAlwaysRemoved(field.name) || (!named.isEmpty && named.contains(where: field.hasName))
        }
        // Most messages carry none (or one, `Connection`, near the end): the fields before the
        // first removed one are kept as they are, and a section with none is returned unchanged
        // (shared, not copied).
        guard let firstRemoved = headers.fields.firstIndex(where: isRemoved) else { return headers }
        var kept: [HTTPHeaders.Field] = []
        // Room for what callers add back: the framing field and `Via` (or `Connection`).
        kept.reserveCapacity(headers.fields.count + 2)
        kept.append(contentsOf: headers.fields[..<firstRemoved])
        for field in headers.fields[(firstRemoved + 1)...] where !isRemoved(field) { kept.append(field) }
        return HTTPHeaders(fields: kept)
    }

    /// Whether a request asks to switch to WebSocket (RFC 6455 §4.1, RFC 9110 §7.8).
    public static func isWebSocketUpgrade(_ headers: HTTPHeaders) -> Bool {
        headers.containsToken("upgrade", inField: "connection")
            && headers.containsToken("websocket", inField: "upgrade")
    }
}
