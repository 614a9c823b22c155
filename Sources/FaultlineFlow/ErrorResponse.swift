import FaultlineHTTP1
public import FaultlineRules

/// Responses the proxy makes up itself when it cannot forward (bad request, unreachable upstream).
///
/// They are small plain-text pages that name Faultline, so a person reading curl's output knows the
/// answer came from the proxy and not from the origin; `X-Faultline-Error` carries the stable code.
public enum ErrorResponse {
    /// The error page for `status`, with `code` for scripts and `message` for people. A 503 (the
    /// proxy's own overload: too many connects waiting) says when to come back, `Retry-After: 1`
    /// (RFC 9110 §15.6.4, §10.2.3), as the refusal of a connection over the limit does.
    public static func make(status: Int, code: String, message: String) -> SyntheticResponse {
        var headers = [
            (name: "Content-Type", value: "text/plain; charset=utf-8"), (name: "X-Faultline-Error", value: code),
        ]
        if status == 503 { headers.append((name: "Retry-After", value: "1")) }
        return SyntheticResponse(status: status, headers: headers, body: Array("faultline: \(message)\n".utf8))
    }

    /// The reason phrase of a status: ``HTTPReasonPhrase/standard(for:)``, never empty.
    public static func reasonPhrase(_ status: Int) -> String {
        HTTPReasonPhrase.standard(for: status)
    }
}
