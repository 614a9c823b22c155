import FaultlineHTTP1
import FaultlineRules

/// Responses the proxy makes up itself when it cannot forward (bad request, unreachable upstream).
///
/// They are small plain-text pages that name Faultline, so a person reading curl's output knows the
/// answer came from the proxy and not from the origin.
public enum ErrorResponse {
    /// Serializes a complete response with `Connection: close` when `closing`.
    public static func encode(status: Int, code: String, message: String, closing: Bool) -> [UInt8] {
        let response = SyntheticResponse(
            status: status,
            headers: [(name: "Content-Type", value: "text/plain; charset=utf-8"), (name: "X-Faultline-Error", value: code)],
            body: Array("faultline: \(message)\n".utf8))
        return response.encode(closing: closing)
    }

    /// The reason phrase of a status: ``HTTPReasonPhrase/standard(for:)``, never empty.
    public static func reasonPhrase(_ status: Int) -> String {
        HTTPReasonPhrase.standard(for: status)
    }
}
