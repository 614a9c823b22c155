import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineServer
import Synchronization

@testable import FaultlineReplay

/// Builds a `Capture` exchange by exchange, each request received, answered and delivered in
/// turn (or, with `deliverLater`, delivered when `deliver(flow:)` says).
struct CaptureBuilder {
    private(set) var exchanges: [CapturedExchange] = []
    private(set) var timeline: [TimelineEntry] = []
    var credentialKinds: [String: String] = [:]
    private var seq: UInt64 = 0

    private mutating func next() -> Moment {
        seq += 1
        return Moment(seq: seq, monoNanoseconds: seq * 1_000_000, wall: "2026-12-02T00:00:00Z")
    }

    @discardableResult
    mutating func add(
        _ method: String, _ url: String, headers: [(String, String)] = [], body: String? = nil, role: String? = nil,
        status: Int = 200, responseHeaders: [(String, String)] = [], responseBody: String = "",
        deliverLater: Bool = false
    ) -> Int64 {
        let flow = Int64(exchanges.count + 1)
        let request = CapturedRequest(
            method: method, url: RecordedURL(url)!, httpVersion: "HTTP/1.1", headers: HTTPHeaders(headers),
            body: body.map { CapturedContent(bytes: Array($0.utf8)) })
        var exchange = CapturedExchange(flow: flow, received: next(), clientRequest: request)
        timeline.append(TimelineEntry(.received(flow: flow), at: exchange.received))
        exchange.role = role
        exchange.upstreamRequest = request
        exchange.forwarded = next()
        exchange.response = CapturedResponse(
            status: status, reason: HTTPReasonPhrase.standard(for: status), httpVersion: "HTTP/1.1",
            headers: HTTPHeaders(responseHeaders), body: CapturedContent(bytes: Array(responseBody.utf8)))
        exchange.responseReceived = next()
        exchanges.append(exchange)
        if !deliverLater { deliver(flow) }
        return flow
    }

    mutating func deliver(_ flow: Int64) {
        let moment = next()
        exchanges[Int(flow - 1)].delivered = moment
        exchanges[Int(flow - 1)].deliveredStatus = exchanges[Int(flow - 1)].response?.status
        timeline.append(TimelineEntry(.delivered(flow: flow), at: moment))
    }

    mutating func mark(_ label: String) {
        timeline.append(TimelineEntry(.mark(label), at: next()))
    }

    var capture: Capture {
        Capture(
            source: "test.jsonl", secrets: .pseudonyms, hasBodies: true, exchanges: exchanges, timeline: timeline,
            credentialKinds: credentialKinds)
    }
}

/// Sends requests to a `ReplaySource` as a server's replayed upstreams do, and collects answers.
final class ReplayDriver: Sendable {
    let source: ReplaySource
    private let answers = Mutex<[FlowID: ReplayAnswer]>([:])
    private let nextFlow = Atomic<UInt64>(0)

    init(_ capture: Capture, _ settings: ReplaySettings = ReplaySettings()) {
        source = ReplaySource(capture: capture, settings: settings)
    }

    /// Sends a request; returns its flow and the deadline the source asked for (nil: answered).
    func send(
        _ method: String, _ url: String, headers: [(String, String)] = [], body: String = ""
    ) -> (flow: FlowID, wait: ReplayWait?) {
        let flow = FlowID(nextFlow.add(1, ordering: .relaxed).newValue)
        let parsed = RecordedURL(url)!
        let endpoint = UpstreamEndpoint(scheme: parsed.scheme, host: parsed.host, port: parsed.port)
        let head = HTTPRequestHead(
            method: method, target: parsed.target, version: .http1_1, headers: HTTPHeaders(headers))
        let request = UpstreamRequest(
            flow: flow, endpoint: endpoint, head: head, body: Array(body.utf8), bodyLength: Int64(body.utf8.count))
        let wait = source.respond(to: request) { [self] answer in self.answers.withLock { $0[flow] = answer } }
        return (flow, wait)
    }

    func answer(_ flow: FlowID) -> ReplayAnswer? { answers.withLock { $0[flow] } }

    /// The answer's status and body, or the failure's status and code.
    func outcome(_ flow: FlowID) -> (status: Int, body: String)? {
        switch answer(flow) {
        case .response(let head, let body, _, _)?: return (head.status, String(decoding: body, as: UTF8.self))
        case .unavailable(let failure, _)?: return (failure.status, failure.description)
        case .forward?: return (0, "forward")
        case nil: return nil
        }
    }

    func events(_ flow: FlowID) -> [ReplayTraceEvent] {
        switch answer(flow) {
        case .response(_, _, _, let trace)?, .unavailable(_, let trace)?, .forward(let trace)?: return trace
        case nil: return []
        }
    }

    func header(_ flow: FlowID, _ name: String) -> String? {
        if case .response(let head, _, _, _)? = answer(flow) { return head.headers.first(name: name) }
        return nil
    }
}
