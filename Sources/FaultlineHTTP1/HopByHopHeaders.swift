/// Removes the header fields that describe one connection rather than the message
/// (RFC 9110 §7.6.1), before a message is forwarded on another connection.
public enum HopByHopHeaders {
    /// Fields that are always connection-specific. `Proxy-Connection` and `Keep-Alive` are
    /// pre-standard but common (RFC 9112 §C.2.2 / RFC 9110 §7.6.1); `Proxy-Authorization`,
    /// `Proxy-Authenticate` and `Proxy-Authentication-Info` address this proxy, not the origin
    /// (RFC 9110 §11.7). `Transfer-Encoding` and `Content-Length` are rewritten from the framing.
    static let alwaysRemoved: [String] = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authorization", "proxy-authenticate", "proxy-authentication-info", "content-length",
    ]

    /// The headers to forward: without hop-by-hop fields nor the fields named by `Connection`.
    /// `Content-Length`/`Transfer-Encoding` are removed too; callers add them back from the framing.
    public static func removing(from headers: HTTPHeaders) -> HTTPHeaders {
        // On the hot path: names are compared in place, and the Connection list is read only
        // when there is one.
        let named = headers.contains(name: "connection") ? headers.tokens(inField: "connection") : []
        var kept = HTTPHeaders()
        for field in headers {
            if alwaysRemoved.contains(where: field.hasName) || named.contains(where: field.hasName) { continue }
            kept.append(field)
        }
        return kept
    }

    /// Whether a request asks to switch to WebSocket (RFC 6455 §4.1, RFC 9110 §7.8).
    public static func isWebSocketUpgrade(_ headers: HTTPHeaders) -> Bool {
        headers.containsToken("upgrade", inField: "connection")
            && headers.containsToken("websocket", inField: "upgrade")
    }
}
