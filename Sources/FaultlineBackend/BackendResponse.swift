import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1

/// A complete response the service hands to the connection to encode: status, fields, body.
///
/// The connection adds the framing (`Content-Length`) and `Connection: close` when it closes;
/// everything else is decided here.
struct BackendResponse: Sendable, Equatable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` as the JSON body, with `Content-Type: application/json`.
    static func json(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = HTTPHeaders()) -> BackendResponse {
        var response = BackendResponse(status: status, headers: headers, body: value.jsonBytes())
        response.headers.add(name: "Content-Type", value: "application/json")
        return response
    }

    /// An error body in the OAuth 2.0 shape (RFC 6749 §5.2, RFC 6750 §3): `{"error": code,
    /// "error_description": description}`, used for every error this backend answers.
    static func error(
        _ status: Int, _ code: String, _ description: String, headers: HTTPHeaders = HTTPHeaders()
    ) -> BackendResponse {
        json(
            status, JSON.object(["error": .string(code), "error_description": .string(description)]), headers: headers)
    }

    /// 204 No Content with these fields.
    static func noContent(headers: HTTPHeaders = HTTPHeaders()) -> BackendResponse {
        BackendResponse(status: 204, headers: headers)
    }

    /// The reason-phrase for the status line (RFC 9110 §15); clients ignore it (RFC 9112 §4).
    var reason: String { HTTPReasonPhrase.standard(for: status) }
}
