import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineServer
import FaultlineTLS
import FaultlineTrace
import Synchronization

/// What goes back: a recorded response with fresh credentials, or the nearest-request 502.
extension ReplaySource {
    /// The recorded response of `index` with fresh credentials in place of the issued ones; the
    /// result still takes the trace events (an ordered answer adds its own before it goes).
    func makeResponse(
        _ index: Int, generation: Bool, _ state: inout State, events: inout [ReplayTraceEvent]
    ) -> ([ReplayTraceEvent]) -> ReplayAnswer {
        guard index >= 0 else {
            let head = HTTPResponseHead(
                status: 400, reason: "Bad Request",
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")])
            let body = Array(
                #"{"error":"invalid_grant","error_description":"the refresh token was already used"}"#.utf8)
            return { .response(head, body: body, trailers: nil, trace: $0) }
        }
        let entry = recorded[index]
        let secrets = issued.byFlow[entry.exchange.flow] ?? []
        // Times move first, on the recorded values; the credentials are replaced after.
        var shifter = timeShifter(for: entry, issued: secrets)
        let headers = shifter.shift(entry.response.headers)
        let shiftedBody = shifter.shift(
            body: entry.response.body?.bytes ?? [], contentType: entry.response.headers.first(name: "content-type"))
        for secret in secrets { shifter.noteIssued(secret, place: "response") }
        if let event = shiftedEvent(shifter, entry) { events.append(event) }
        let signingInputs = shifter.issuedJWTs
        var minted: [String: String] = [:]
        func fresh(_ bytes: [UInt8]) -> [UInt8] {
            CredentialSubstitution.replace(secrets, in: bytes) { value in
                guard generation else { return state.mint.fresh(for: value, signingInput: signingInputs[value]) }
                if let known = minted[value] { return known }
                let token = state.mint.nextGeneration(for: value, signingInput: signingInputs[value])
                minted[value] = token
                return token
            }
        }
        var head = HTTPResponseHead(status: entry.response.status, reason: entry.response.reason)
        // Framing and connection fields go: the replayed upstream frames its own answer.
        for field in headers {
            head.headers.add(name: field.name, value: String(decoding: fresh(Array(field.value.utf8)), as: UTF8.self))
        }
        var body = fresh(shiftedBody)
        for note in state.mint.takeNotes() {
            var fields: [TraceField] = [.int("recorded_flow", entry.exchange.flow), .string("alg", note.alg)]
            if let kid = note.kid {
                fields.append(.string("kid", kid))
            } else {
                fields.append(
                    .string(
                        "warning",
                        "the replay cannot sign alg \(note.alg): the token goes out with an unsigned placeholder"))
            }
            events.append(ReplayTraceEvent(.replayMinted, fields))
        }
        if let signer, let keySet = RecordedKeySet(body, contentType: headers.first(name: "content-type")) {
            let keys = signer.publicKeySet
            body = keys.jsonBytes()
            events.append(
                ReplayTraceEvent(
                    .replayKeys,
                    [
                        .int("recorded_flow", entry.exchange.flow), .int("recorded_keys", Int64(keySet.count)),
                        .strings("kids", keys["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? []),
                    ]))
        }
        let trailers = entry.response.trailers
        return { .response(head, body: body, trailers: trailers, trace: $0) }
    }

    /// Nothing recorded answers the request: the trace and the client learn what came nearest.
    func unmatched(_ request: UpstreamRequest, _ shape: RequestShape, _ order: RecordedOrder?) -> (ReplayAnswer, String)
    {
        let (nearest, differences) = nearestRecorded(to: shape)
        var reason = "the recording has no \(shape.method) \(shape.url)"
        if let nearest {
            let exchange = recorded[nearest].exchange
            reason +=
                "; nearest: \(recorded[nearest].request.method) \(recorded[nearest].request.url) (recorded flow \(exchange.flow), seq \(exchange.received.seq))"
            reason +=
                differences.isEmpty
                ? ", whose recorded answers are all used (--repeat none)"
                : ", which differs in " + differences.joined(separator: "; ")
        }
        var fields: [TraceField] = [
            .string("method", shape.method), .target("url", shape.url.description), .string("reason", reason),
        ]
        if let nearest { fields.append(.int("nearest_flow", recorded[nearest].exchange.flow)) }
        if let order {
            let next = order.pending(limit: 3).map(\.summary)
            reason +=
                "; the run had reached \(order.reachedThrough?.summary ?? "the start of the recording"), which goes on with: "
                + (next.isEmpty ? "nothing" : next.joined(separator: "; "))
            fields.append(.strings("recorded_next", next))
        }
        var events = [ReplayTraceEvent(.replayUnmatched, fields)]
        if order != nil { events.append(ReplayTraceEvent(.replayDiverged, [.string("reason", reason)])) }
        let line = "faultline replay: unmatched: \(reason)"
        if settings.unmatched == .forward {
            return (.forward(trace: events), line + " (sent on to the network: --unmatched forward)")
        }
        return (
            .unavailable(UpstreamFailure(code: "replay-unmatched", status: 502, description: reason), trace: events),
            line
        )
    }

    /// The recorded request with the fewest differing parts (a different route weighs most).
    func nearestRecorded(to shape: RequestShape) -> (Int?, [String]) {
        var best: (index: Int, score: Int, differences: [String])?
        let all =
            ReplaySettings.MatchPart.defaults
            + settings.match.filter { !ReplaySettings.MatchPart.defaults.contains($0) }
        for index in recorded.indices {
            let differences = shape.differences(from: recorded[index].shape, parts: all)
            let routeDifferences = shape.differences(
                from: recorded[index].shape, parts: [.method, .scheme, .host, .port, .path]
            ).count
            let score = routeDifferences * 10 + differences.count
            if best == nil || score < best!.score { best = (index, score, differences) }
        }
        guard let best else { return (nil, []) }
        return (best.index, best.differences)
    }
}
