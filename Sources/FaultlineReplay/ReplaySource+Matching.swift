import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineServer
import FaultlineTrace
import Synchronization

/// Which recorded exchange answers a request: its shape, its candidates in recorded order, the
/// repeat policy and refresh rotation.
extension ReplaySource {
    /// The request's shape, every fresh value read back as the recorded one; with `standingIn`,
    /// as if it presented the recorded value `for` wherever it presents `value` (in the target,
    /// a header or the body: rule "stand-in").
    func liveShape(
        _ request: UpstreamRequest, _ state: inout State, standingIn: (value: String, for: String)? = nil
    ) -> RequestShape {
        let mint = state.mint
        func recorded(_ bytes: [UInt8]) -> [UInt8] {
            let text = mint.recordedText(bytes) ?? bytes
            guard let standingIn else { return text }
            return CredentialSubstitution.replace([standingIn.value], in: text) { _ in standingIn.for }
        }
        func recordedText(_ text: String) -> String {
            String(decoding: recorded(Array(text.utf8)), as: UTF8.self)
        }
        let target = recordedText(request.head.target)
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path = String(pathAndQuery[0])
        if !request.endpoint.pathPrefix.isEmpty, path.hasPrefix(request.endpoint.pathPrefix) {
            path = String(path.dropFirst(request.endpoint.pathPrefix.count))
        }
        let url = RecordedURL(
            scheme: request.endpoint.scheme, host: request.endpoint.host, port: request.endpoint.port, path: path,
            query: pathAndQuery.count > 1 ? String(pathAndQuery[1]) : nil)
        let headers = HTTPHeaders(request.head.headers.map { ($0.name, recordedText($0.value)) })
        let body = recorded(request.body)
        return RequestShape(
            method: request.head.method, url: url, headers: headers, body: body, settings: settings, issued: issued)
    }

    struct Choice {
        /// The recorded exchange whose answer goes out; -1 for RFC 6749's `invalid_grant`.
        let recorded: Int
        let events: [ReplayTraceEvent]
        /// Issue new fresh tokens rather than the ones this run already handed out (a refresh
        /// the recording has no answer for, answered as its recorded refresh was).
        var newGeneration = false
    }

    /// The recorded exchange that answers `shape`, or nil when none does. `presentingRefresh`:
    /// the fresh refresh tokens the request presents (a refresh rotates them).
    func choose(_ shape: RequestShape, presentingRefresh: [String], _ state: inout State) -> Choice? {
        let pool = routes.map { $0[shape.route] ?? [] } ?? Array(recorded.indices)
        var candidates = pool.filter { shape.matches(recorded[$0].shape, parts: settings.match) }
        if candidates.allSatisfy({ state.uses[$0] > 0 }) {
            // Nothing unused matches exactly: one that only lacks a credential the recording sent may.
            let loose = pool.filter {
                state.uses[$0] == 0 && shape.matches(recorded[$0].shape, parts: settings.match, loosely: true)
            }
            if !loose.isEmpty { candidates = loose }
        }
        if let fresh = candidates.first(where: { state.uses[$0] == 0 }) {
            state.uses[fresh] += 1
            if recorded[fresh].isSuccessfulRefresh { state.spentRefreshTokens.formUnion(presentingRefresh) }
            return Choice(recorded: fresh, events: [matchedEvent(fresh, use: 1, repeated: nil)])
        }
        if presentingRefresh.contains(where: state.spentRefreshTokens.contains) {
            // A rotated refresh token presented again: the recorded backend refused that (RFC 6749
            // §10.4, refresh token rotation), so the replay does too.
            let rejection =
                pool.first { recorded[$0].isRejectedRefresh }
                ?? recorded.indices.first { recorded[$0].isRejectedRefresh }
            var fields: [TraceField] = [
                .string("reason", "the refresh token was already rotated by an earlier refresh")
            ]
            if let rejection {
                fields.append(.int("answered_with_flow", recorded[rejection].exchange.flow))
            } else {
                fields.append(
                    .string("answer", "invalid_grant (RFC 6749 section 5.2): the recording has no rejected refresh"))
            }
            return Choice(recorded: rejection ?? -1, events: [ReplayTraceEvent(.replayRotated, fields)])
        }
        if !candidates.isEmpty {
            let chosen: Int
            switch settings.repeatPolicy {
            case .none: return nil
            case .last: chosen = candidates[candidates.count - 1]
            case .cycle:
                let key = candidates.map(String.init).joined(separator: ",")
                let count = state.cycles[key, default: 0]
                state.cycles[key] = count + 1
                chosen = candidates[count % candidates.count]
            }
            state.uses[chosen] += 1
            return Choice(
                recorded: chosen,
                events: [matchedEvent(chosen, use: state.uses[chosen], repeated: settings.repeatPolicy)])
        }
        if !presentingRefresh.isEmpty, let template = pool.last(where: { recorded[$0].isSuccessfulRefresh }) {
            // A refresh with a token this run issued and the recording never presented (a client
            // that refreshes more often than the recorded one): the backend would rotate, so the
            // replay answers as the recorded refresh did, with new tokens.
            state.spentRefreshTokens.formUnion(presentingRefresh)
            state.uses[template] += 1
            return Choice(
                recorded: template,
                events: [
                    ReplayTraceEvent(
                        .replayRotated,
                        [
                            .int("recorded_flow", recorded[template].exchange.flow),
                            .string(
                                "reason",
                                "a refresh the recording has no answer for: answered as recorded flow \(recorded[template].exchange.flow) was, with new tokens"
                            ),
                        ])
                ],
                newGeneration: true)
        }
        return nil
    }

    func matchedEvent(_ index: Int, use: Int, repeated: ReplaySettings.Repeat?) -> ReplayTraceEvent {
        let entry = recorded[index]
        var fields: [TraceField] = [
            .int("recorded_flow", entry.exchange.flow), .int("recorded_seq", Int64(entry.exchange.received.seq)),
            .int("status", entry.response.status), .int("use", use),
        ]
        if let repeated { fields.append(.string("repeat", repeated.rawValue)) }
        if entry.response.body?.truncated == true { fields.append(.bool("truncated", true)) }
        return ReplayTraceEvent(.replayMatched, fields)
    }

    /// A request's bytes where a credential can travel: target, field values and body.
    static func text(of request: CapturedRequest) -> String {
        ([request.url.target] + request.headers.map(\.value)).joined(separator: "\n") + "\n"
            + String(decoding: request.body?.bytes ?? [], as: UTF8.self)
    }

    static func text(of request: UpstreamRequest) -> [UInt8] {
        Array(([request.head.target] + request.head.headers.map(\.value)).joined(separator: "\n").utf8) + [0x0A]
            + request.body
    }
}
