public import FaultlineRules

/// Responses the proxy makes up itself when it cannot forward (bad request, unreachable upstream).
///
/// They are small plain-text pages that name Faultline, so a person reading curl's output knows the
/// answer came from the proxy and not from the origin; `X-Faultline-Error` carries the stable code.
public enum ErrorResponse {
    /// The error page for `status`, with `code` for scripts and `message` for people.
    public static func make(status: Int, code: String, message: String) -> SyntheticResponse {
        SyntheticResponse(
            status: status,
            headers: [(name: "Content-Type", value: "text/plain; charset=utf-8"), (name: "X-Faultline-Error", value: code)],
            body: Array("faultline: \(message)\n".utf8))
    }

    /// The reason phrase of a status (RFC 9110 §15), empty for codes without a registered one.
    public static func reasonPhrase(_ status: Int) -> String {
        reasonPhrases[status] ?? ""
    }

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted",
        204: "No Content", 206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
        401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
        409: "Conflict", 410: "Gone", 413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type",
        422: "Unprocessable Content", 425: "Too Early", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 500: "Internal Server Error", 501: "Not Implemented",
        502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
        508: "Loop Detected",
    ]
}
