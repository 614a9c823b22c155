import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1

/// What the routes answer with: a JSON document or a web UI page now, or one of the answers that
/// take time (the connection carries those out on its loop).
enum ControlReply: Sendable {
    /// A complete JSON answer; `allow` fills the `Allow` field of a 405 (RFC 9110 §15.5.6).
    case json(status: Int, JSONValue, allow: [String] = [])
    /// Long poll: answer 200 with the hold once one named `name` exists, 408 after `timeout`.
    case waitForHold(name: String, timeout: Duration)
    /// Stream every trace line recorded from now on, until the client goes away.
    case traceStream
    /// The web UI's events: the recent trace lines, then the live ones until the client goes away,
    /// dropping and counting lines a slow browser cannot take (`ControlTraceStream`).
    case uiEvents
    /// A web UI page, asset or redirect: the status, `Content-Type`, body and any other fields.
    case document(status: Int, contentType: String, body: [UInt8], headers: HTTPHeaders = HTTPHeaders())

    /// 200 with `value`.
    static func ok(_ value: JSONValue) -> ControlReply { .json(status: 200, value) }

    /// 405 for a known path asked with another method, naming the ones it takes in the message
    /// and in `Allow` (RFC 9110 §15.5.6).
    static func methodNotAllowed(_ request: ControlRequest, allowed: [String]) -> ControlReply {
        .json(
            status: 405,
            ControlJSON.error(
                "\(request.rawPath) does not take \(request.method); it takes \(allowed.joined(separator: ", "))"),
            allow: allowed)
    }
}

/// A call the API refuses, with the status and message to answer (peer misbehaviour as a value).
struct ControlFailure: Error, Sendable {
    let status: Int
    let message: String
    let suggestion: String?

    init(_ status: Int, _ message: String, suggestion: String? = nil) {
        self.status = status
        self.message = message
        self.suggestion = suggestion
    }

    var reply: ControlReply {
        .json(status: status, ControlJSON.error(message, suggestion: suggestion))
    }

    /// 409 for a change asked of a proxy that runs without rules.
    static let noRules = ControlFailure(409, "the proxy was started without --rules; there are no rules to change")
}
