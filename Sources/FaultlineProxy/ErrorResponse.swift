import FaultlineHTTP1

/// Responses the proxy makes up itself when it cannot forward (bad request, unreachable upstream).
///
/// They are small plain-text pages that name Faultline, so a person reading curl's output knows the
/// answer came from the proxy and not from the origin.
public enum ErrorResponse {
    /// Serializes a complete response with `Connection: close` when `closing`.
    public static func encode(status: Int, code: String, message: String, closing: Bool) -> [UInt8] {
        let body = Array("faultline: \(message)\n".utf8)
        var headers: HTTPHeaders = [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", String(body.count)),
            ("X-Faultline-Error", code),
        ]
        if closing { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: status, reason: reasonPhrase(status), headers: headers)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + body.count)
        HTTP1Encoder.encode(head, into: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// The reason phrase for the statuses the proxy makes up (RFC 9110 §15).
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 414: return "URI Too Long"
        case 431: return "Request Header Fields Too Large"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 508: return "Loop Detected"
        default: return ""
        }
    }
}
