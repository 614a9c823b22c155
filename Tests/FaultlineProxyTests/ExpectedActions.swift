import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import PlaybookSupport
import Testing

/// The driver actions a playbook's session produced and no `expect` has consumed yet, checked in
/// the manner of mitmproxy's strict `Playbook` (and of the flow tests' `StrictPlaybook`): each
/// `expect` lists exactly the actions since the previous one, as lines (``ProxyActionLines``); a
/// missing, extra or reordered action fails the test with a diff, and so do actions still
/// unexpected when the playbook that owns this goes away.
///
/// Writes, trace entries, lineage steps and rule questions are not here: the playbooks read the
/// writes back as text or frames, and `DriverServices` carries out the rest into the trace.
///
/// A class, so that its `deinit` fails the test over actions nobody expected; the playbooks are
/// values that hold one, so it goes away with the last copy of its playbook.
final class ExpectedActions {
    /// Whether lines name the flow (HTTP/2: many flows at once) or not (HTTP/1: one at a time).
    let namesFlows: Bool
    private let createdAt: SourceLocation
    private var pending: [ProxyAction] = []

    init(namesFlows: Bool, createdAt: SourceLocation) {
        self.namesFlows = namesFlows
        self.createdAt = createdAt
    }

    deinit {
        guard !pending.isEmpty else { return }
        Issue.record(
            "the session's last actions were never expected:\n\(render(pending).map { "  \($0)" }.joined(separator: "\n"))",
            sourceLocation: createdAt)
    }

    func append(_ action: ProxyAction) { pending.append(action) }

    /// Whether no action is waiting to be expected.
    var isEmpty: Bool { pending.isEmpty }

    /// Checks that the actions since the last call are exactly `lines`, in order, and consumes
    /// them (right or wrong). Returns them for checks a line does not show.
    @discardableResult
    func expect(_ lines: [String], sourceLocation: SourceLocation) -> [ProxyAction] {
        let actions = pending
        pending = []
        let actual = render(actions)
        if actual != lines {
            Issue.record(
                "the session's actions differ (- expected, + actual):\n\(LineDiff.diff(lines, actual))",
                sourceLocation: sourceLocation)
        }
        return actions
    }

    /// Checks that the actions since the last call are exactly `lines` followed by every group
    /// of `groups`, each whole and in its own order, the groups in any order; consumes them. For
    /// actions the session emits per stream in an order it does not promise (it walks a
    /// dictionary of streams).
    @discardableResult
    func expect(_ lines: [String], thenInAnyOrder groups: [[String]], sourceLocation: SourceLocation)
        -> [ProxyAction]
    {
        let actions = pending
        let actual = render(actions)
        var rest = actual[...]
        if rest.starts(with: lines) {
            rest = rest.dropFirst(lines.count)
            var left = groups
            while let index = left.firstIndex(where: { !$0.isEmpty && rest.starts(with: $0) }) {
                rest = rest.dropFirst(left[index].count)
                left.remove(at: index)
            }
            if rest.isEmpty, left.allSatisfy(\.isEmpty) {
                pending = []
                return actions
            }
        }
        return expect(lines + groups.flatMap { $0 }, sourceLocation: sourceLocation)
    }

    /// The lines `actions` render as here.
    func render(_ actions: [ProxyAction]) -> [String] {
        actions.map { ProxyActionLines.line($0, namingFlows: namesFlows) }
    }

}

/// A session's driver actions as the playbooks' expectations read them: `connect
/// http://api.test:80 fresh`, `arm responseHead 60s`, `close client after flush`. With flows
/// named (HTTP/2), a flow's action starts with its flow: `f1 release upstream`.
enum ProxyActionLines {
    static func line(_ action: ProxyAction, namingFlows: Bool) -> String {
        let (flow, text) = describe(action)
        guard namingFlows, let flow else { return text }
        return "\(flow) \(text)"
    }

    private static func describe(_ action: ProxyAction) -> (FlowID?, String) {
        switch action {
        case .writeToClient(let bytes): return (nil, "write client \(bytes.count)")
        case .writeToUpstream(let flow, let bytes): return (flow, "write upstream \(bytes.count)")
        case .connectUpstream(let flow, let endpoint, let fresh, let http1Only):
            var text = "connect \(endpoint)"
            if let address = endpoint.connectHost { text += " at \(address)" }
            if fresh { text += " fresh" }
            if http1Only { text += " http1-only" }
            return (flow, text)
        case .releaseUpstream(let flow): return (flow, "release upstream")
        case .closeUpstream(let flow): return (flow, "close upstream")
        case .shutdownUpstreamWrite(let flow): return (flow, "shutdown upstream write")
        case .shutdownClientWrite: return (nil, "shutdown client write")
        case .closeClient(let afterFlush): return (nil, afterFlush ? "close client after flush" : "close client now")
        case .setTimer(let timer, let delay):
            return (flow(of: timer), "arm \(name(of: timer)) \(ActionText.seconds(delay))")
        case .cancelTimer(let timer): return (flow(of: timer), "cancel \(name(of: timer))")
        case .resetClient: return (nil, "reset client")
        case .hold(let request):
            var text = "hold \(request.name) (\(request.phase.rawValue))"
            if let on = request.releaseOn { text += " on=\(on)" }
            return (request.flow, text)
        case .unregisterHold(let flow): return (flow, "unregister hold")
        case .observed(let event): return (nil, "observed \(ActionText.event(event))")
        case .ruleFired(let rule): return (nil, "fired \(rule)")
        case .duplicate(let request):
            var text = "duplicate x\(request.count)"
            if request.spacing != .zero { text += " every \(ActionText.seconds(request.spacing))" }
            if request.streamed { text += " streamed body=\(request.body.count)" }
            return (request.original, text)
        case .duplicateBody(let flow, let bytes): return (flow, "duplicate body \(bytes.count)")
        case .duplicateEnd(let flow, let complete):
            return (flow, complete ? "duplicate end" : "duplicate end incomplete")
        case .throttle(let flow, let side, let rate):
            return (flow, "throttle \(side == .upstream ? "upstream" : "client") \(rate.map(String.init) ?? "off")")
        case .interceptTLS(let interception):
            var text = "intercept tls \(interception.target)"
            if let name = interception.serverName { text += " sni=\(name)" }
            if !interception.offeredALPN.isEmpty { text += " alpn=\(interception.offeredALPN.joined(separator: ","))" }
            text += " bytes=\(interception.clientBytes.count)"
            if interception.clientReachedEOF { text += " eof" }
            return (interception.flow, text)
        case .decide(let flow, _): return (flow, "decide")
        case .trace(let entry): return (nil, "trace \(entry.kind)")
        case .stepLineage(let flow, _, _): return (flow, "lineage step")
        }
    }

    private static func flow(of timer: SessionTimer) -> FlowID? {
        if case .flow(let flow, _) = timer { return flow }
        return nil
    }

    private static func name(of timer: SessionTimer) -> String {
        switch timer {
        case .clientIdle: return "clientIdle"
        case .requestHead: return "requestHead"
        case .requestBody: return "requestBody"
        case .flow(_, let timer): return timer.rawValue
        case .streamPacing(let stream): return "streamPacing(\(stream))"
        case .streamBody(let stream): return "streamBody(\(stream))"
        }
    }

}
