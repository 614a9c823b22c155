import FaultlineConfig
import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import Synchronization

/// The control API's behaviour without the sockets: checks the token, routes a decoded call and
/// answers it from the running server's rule runtime, holds and trace.
///
/// Thread-safe (everything it touches is): connections on any loop call `handle` directly. Calls
/// that take time (a hold wait, the trace stream) come back as `ControlReply` cases that the
/// connection carries out on its loop.
final class ControlAPI: Sendable {
    /// A proxy listener as `GET /v1/health` lists it.
    struct ListenerInfo: Sendable {
        let address: String
        let mode: String
    }

    let runtime: RuleRuntime
    let trace: TraceRecorder
    let listeners: [ListenerInfo]
    let configuration: ControlConfiguration
    /// The `Host` check every call passes first.
    let gate: ControlGate
    /// The web UI's tickets and sessions.
    let uiSessions = UISessions()
    /// Hold waits (long polls) pending now; `GET /v1/health` reports it as `waits`, so a test can
    /// tell its wait is registered before it lets the flow arrive.
    let pendingWaits = Atomic<Int>(0)

    init(runtime: RuleRuntime, trace: TraceRecorder, listeners: [ListenerInfo], configuration: ControlConfiguration) {
        self.runtime = runtime
        self.trace = trace
        self.listeners = listeners
        self.configuration = configuration
        gate = ControlGate(listenerAddress: configuration.address)
    }

    /// True when the call carries `Authorization: Bearer <the token>` (compared in constant time).
    func isAuthorized(_ headers: HTTPHeaders) -> Bool {
        guard let presented = ControlToken.bearer(in: headers.first(name: "authorization")) else { return false }
        return ControlToken.matches(presented, configuration.token)
    }

    /// Answers one call: 403 when `Host` does not name this listener (`ControlGate`); under
    /// `/ui/`, the web UI (`handleUI`); else 401 without the token, then the API.
    func handle(_ request: ControlRequest) -> ControlReply {
        let host = request.headers.first(name: "host")
        guard gate.allowsHost(host) else {
            return ControlFailure(
                403,
                "Host '\(host ?? "")' does not name this control listener; it answers to localhost and loopback addresses"
            ).reply
        }
        if request.path.first == "ui" { return handleUI(request) }
        guard isAuthorized(request.headers) else {
            return .json(
                status: 401,
                ControlJSON.error("missing or wrong token: send 'Authorization: Bearer <token>' (see control.json)"))
        }
        return route(request, path: request.path)
    }

    /// Routes an authorized call by `path` (the request's, or what follows `/ui/api` for the UI):
    /// 404 for an unknown path, 405 (with the allowed methods) for a known path and the wrong
    /// method, else whatever the route answers.
    func route(_ request: ControlRequest, path: [String]) -> ControlReply {
        let matching = ControlRoutes.all.compactMap { route in route.match(path).map { (route, $0) } }
        guard !matching.isEmpty else {
            return ControlFailure(404, "no such endpoint: \(request.method) \(request.rawPath)").reply
        }
        guard let (route, parameters) = matching.first(where: { $0.0.method == request.method }) else {
            var allowed: [String] = []
            for (route, _) in matching where !allowed.contains(route.method) { allowed.append(route.method) }
            return .methodNotAllowed(request, allowed: allowed)
        }
        do throws(ControlFailure) {
            return try route.handler(self, request, parameters)
        } catch {
            return error.reply
        }
    }

    /// The policy, or 409 when the proxy runs without rules.
    func requirePolicy() throws(ControlFailure) -> FlowPolicy {
        guard let policy = runtime.policy else { throw ControlFailure.noRules }
        return policy
    }

    /// The engine's refusal as an answer: 404 for an unknown rule or scenario, 422 for a value
    /// that does not fit (an undeclared state, a lineage for a global scenario).
    static func failure(_ error: RuleEngineError) -> ControlFailure {
        let status = error.code == .unknownRule || error.code == .unknownScenario ? 404 : 422
        return ControlFailure(status, error.description, suggestion: error.suggestion)
    }
}
