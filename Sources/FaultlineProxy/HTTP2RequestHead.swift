import FaultlineHTTP1

/// An HTTP/2 request's header block read as the rest of the proxy reads a request: the control
/// data of its pseudo-header fields (RFC 9113 §8.3.1) and regular fields as HTTP/1 would carry
/// them, so that routing (`RequestRoute`), the flow core and an HTTP/1.1 upstream need not know
/// the request came over HTTP/2.
struct HTTP2RequestHead: Equatable {
    var method: String
    var scheme: String?
    var authority: String?
    var path: String?
    /// Regular fields in order: `Host` first (from `:authority`, RFC 9113 §8.3.1), `cookie` crumbs
    /// joined into one field with "; " (§8.2.3), the rest as received.
    var headers: HTTPHeaders
    var contentLength: Int64?

    /// Reads a request header block. nghttp2 has already refused a malformed one (RFC 9113 §8.3:
    /// pseudo-fields after regular ones, duplicates, uppercase names, connection-specific fields),
    /// so what is checked here is what this proxy needs: a method, and a path except for CONNECT.
    init(fields: [(name: String, value: String)]) throws(RequestRoute.Refusal) {
        var method: String?
        var regular = HTTPHeaders()
        var cookies: [String] = []
        for field in fields {
            switch field.name {
            case ":method": method = field.value
            case ":scheme": scheme = field.value
            case ":authority": authority = field.value
            case ":path": path = field.value
            case "cookie": cookies.append(field.value)
            default:
                guard !field.name.hasPrefix(":") else {
                    throw RequestRoute.Refusal(
                        status: 400, code: "unknown-pseudo-header", message: "unknown pseudo-header field \(field.name)")
                }
                regular.add(name: field.name, value: field.value)
            }
        }
        guard let method, !method.isEmpty else {
            throw RequestRoute.Refusal(status: 400, code: "missing-method", message: "the request has no :method")
        }
        self.method = method
        // RFC 9113 §8.3.1: a request without :authority may carry Host; with it, Host is replaced.
        var ordered = HTTPHeaders()
        if let authority, !authority.isEmpty {
            ordered.add(name: "host", value: authority)
            regular.remove(name: "host")
        }
        for field in regular { ordered.append(field) }
        if !cookies.isEmpty { ordered.add(name: "cookie", value: cookies.joined(separator: "; ")) }
        headers = ordered
        if let text = headers.first(name: "content-length"), let length = Int64(text), length >= 0 { contentLength = length }
        if method != "CONNECT", path?.isEmpty ?? true {
            throw RequestRoute.Refusal(status: 400, code: "missing-path", message: "the request has no :path")
        }
    }

    /// The head as an HTTP/1.1 request for `RequestRoute.decide`: absolute-form on a forward
    /// listener (the request names its origin), origin-form on a reverse one, authority-form for
    /// CONNECT (RFC 9113 §8.5).
    func http1Head(forward: Bool) -> HTTPRequestHead {
        let target: String
        if method == "CONNECT" {
            target = authority ?? ""
        } else if forward, let scheme, let authority {
            target = "\(scheme)://\(authority)\(path ?? "/")"
        } else {
            target = path ?? "/"
        }
        return HTTPRequestHead(method: method, target: target, version: .http1_1, headers: headers)
    }
}
