import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import PlaybookSupport

/// Renders a `FlowAction` as one short line a test can list, e.g. `send head POST /jobs known(2)`
/// or `trace hold.ended name=gate outcome=released ended_by=control`.
///
/// A line says what the action is and the parts of it a reader checks at a glance; details (header
/// values, body bytes, the whole `DuplicateRequest`) are for the playbook's recorded values. An
/// action whose flow is not the expected one gets ` [f9]` appended, so a wrong ID fails the
/// comparison like any other difference.
struct FlowActionRenderer {
    /// Trace fields shown per event kind, in the event's own field order; other fields are left out.
    var shownFields: [String: Set<String>] = Self.defaultShownFields

    static let defaultShownFields: [String: Set<String>] = [
        "request.received": ["role", "lineage", "duplicate_of"],
        "request.forwarded": ["body", "duplicate_of"],
        "response.received": ["status", "duplicate_of"],
        "response.delivered": ["status", "synthetic", "code", "body", "retry_after"],
        "response.discarded": ["status", "length", "duplicate_of"],
        "rule.fired": ["rule", "phase"],
        "rule.skipped": ["action"],
        "hold.started": ["name", "phase", "release_on", "timeout_s"],
        "hold.ended": ["name", "outcome", "ended_by", "release_on", "applied", "status"],
        "fault.injected": ["fault", "phase"],
        "duplicate.scheduled": ["count", "timing", "spacing_s", "skipped"],
        "flow.aborted": ["reason"],
        "upstream.error": ["code", "status"],
        "protocol.error": ["side", "code", "status"],
    ]

    /// The flow an action carries, read from the action itself (not from `FlowAction.flow`, so
    /// the check does not trust the code under test).
    static func flow(of action: FlowAction) -> FlowID {
        switch action {
        case .openUpstream(let id, _), .sendRequestHead(let id, _), .sendRequestBody(let id, _),
            .sendRequestEnd(let id, _), .releaseUpstream(let id), .closeUpstream(let id), .sendInterim(let id, _),
            .sendResponseHead(let id, _, _, _), .sendResponseBody(let id, _), .sendResponseEnd(let id, _),
            .breakClient(let id, _, _), .goAwayClient(let id, _, _), .armTimer(let id, _, _), .cancelTimer(let id, _),
            .unregisterHold(let id),
            .observed(let id, _), .ruleFired(let id, _), .throttle(let id, _, _), .decide(let id, _),
            .stepLineage(let id, _),
            .trace(let id, _, _), .ended(let id, _), .duplicateBody(let id, _), .duplicateEnd(let id, _):
            return id
        case .hold(let request): return request.flow
        case .duplicate(let request): return request.original
        }
    }

    /// The line for `action`, marked when its flow is not `expectedFlow`.
    func line(_ action: FlowAction, expectedFlow: FlowID) -> String {
        let text = describe(action)
        let flow = Self.flow(of: action)
        return flow == expectedFlow ? text : "\(text) [\(flow)]"
    }

    private func describe(_ action: FlowAction) -> String {
        switch action {
        case .openUpstream(_, let endpoint):
            return "open \(endpoint)"
        case .sendRequestHead(_, let request):
            var text = "send head \(request.method) \(request.target)"
            if request.body != .none { text += " \(Self.length(request.body))" }
            if request.upgrade { text += " upgrade" }
            return text
        case .sendRequestBody(_, let bytes):
            return "send body \(bytes.count)"
        case .sendRequestEnd(_, let trailers):
            return "send end" + Self.trailers(trailers)
        case .releaseUpstream:
            return "release upstream"
        case .closeUpstream:
            return "close upstream"
        case .sendInterim(_, let head):
            return "client interim \(head.status)"
        case .sendResponseHead(_, let head, let length, let source):
            return "client head \(head.status) \(Self.length(length)) \(Self.source(source))"
        case .sendResponseBody(_, let bytes):
            return "client body \(bytes.count)"
        case .sendResponseEnd(_, let trailers):
            return "client end" + Self.trailers(trailers)
        case .breakClient(_, let how, let code):
            return "break \(Self.clientBreak(how))" + (code.map { " code=\($0)" } ?? "")
        case .goAwayClient(_, let code, let thisStreamProcessed):
            return "goaway \(code)" + (thisStreamProcessed ? " keeping this stream" : "")
        case .armTimer(_, let timer, let delay):
            return "arm \(timer.rawValue) \(ActionText.seconds(delay))"
        case .cancelTimer(_, let timer):
            return "cancel \(timer.rawValue)"
        case .hold(let request):
            var text = "hold \(request.name) (\(request.phase.rawValue))"
            if let on = request.releaseOn { text += " on=\(on)" }
            return text
        case .unregisterHold:
            return "unregister hold"
        case .observed(_, let event):
            return "observed \(ActionText.event(event))"
        case .ruleFired(_, let rule):
            return "fired \(rule)"
        case .duplicate(let request):
            var text = "duplicate x\(request.count)"
            if request.spacing != .zero { text += " every \(ActionText.seconds(request.spacing))" }
            if request.streamed { text += " streamed body=\(request.body.count)" }
            return text
        case .duplicateBody(_, let bytes):
            return "duplicate body \(bytes.count)"
        case .duplicateEnd(_, let complete):
            return complete ? "duplicate end" : "duplicate end incomplete"
        case .throttle(_, let side, let rate):
            return "throttle \(side == .upstream ? "upstream" : "client") \(rate.map(String.init) ?? "off")"
        case .decide(_, .request):
            return "decide request"
        case .decide(_, .response(let view, _, let reservesLineage)):
            return "decide response \(view.status.map(String.init) ?? "?")"
                + (reservesLineage ? " reserve lineage" : "")
        case .stepLineage(_, let step):
            switch step {
            case .requestSent(let role, _): return "lineage requestSent role=\(role)"
            case .responseCompleted(let role, _, let status, _, let body, _):
                return "lineage responseCompleted role=\(role) status=\(status)"
                    + (body.map { " body=\($0.count)" } ?? "")
            }
        case .trace(_, let kind, let fields):
            let shown = shownFields[kind.rawValue] ?? []
            let parts = fields.filter { shown.contains($0.key) }.map { "\($0.key)=\(Self.value($0.value))" }
            return (["trace \(kind)"] + parts).joined(separator: " ")
        case .ended(_, let outcome):
            return "ended \(outcome.rawValue)"
        }
    }

    static func length(_ length: FlowBodyLength) -> String {
        switch length {
        case .none: return "none"
        case .known(let count): return "known(\(count))"
        case .unknown: return "unknown"
        }
    }

    static func source(_ source: ResponseSource) -> String {
        switch source {
        case .upstream: return "upstream"
        case .rule: return "rule"
        case .proxyError: return "proxy-error"
        }
    }

    static func clientBreak(_ how: ClientBreak) -> String {
        switch how {
        case .reset: return "reset"
        case .close: return "close"
        case .closeAfterFlush: return "close-after-flush"
        case .malformedBody: return "malformed-body"
        }
    }

    static func trailers(_ trailers: HTTPHeaders?) -> String {
        guard let trailers else { return "" }
        return " trailers=" + trailers.map(\.name).joined(separator: ",")
    }

    static func value(_ value: TraceFieldValue) -> String {
        switch value {
        case .string(let text), .target(let text): return text
        case .int(let number): return String(number)
        case .double(let number):
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): return String(flag)
        case .null: return "null"
        case .strings(let texts): return texts.joined(separator: ",")
        case .object(let fields):
            return "{" + fields.map { "\($0.key)=\(Self.value($0.value))" }.joined(separator: ",") + "}"
        case .headers(let headers): return "headers(\(headers.count))"
        case .secret: return "secret"
        case .body(let summary): return String(summary.length)
        case .content(let content): return "content(\(content.length))"
        }
    }
}
