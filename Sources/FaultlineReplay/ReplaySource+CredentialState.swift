import FaultlineCapture
import FaultlineCore
import FaultlineRules
import FaultlineServer
import FaultlineTrace

/// Credentials as state (`CredentialHistory`, `CredentialRun`): a credential the recording shows
/// rejected at this point of the run gets that rejection on any path, and an accepted one stands
/// in for another of its kind where only that other was recorded.
extension ReplaySource {
    /// The model of a recording: its replayable exchanges, fed in the order the recorded server
    /// answered them.
    static func credentialHistory(of recorded: [Recorded]) -> CredentialHistory {
        var history = CredentialHistory()
        let order = recorded.indices.sorted {
            answerSeq(recorded[$0].exchange) < answerSeq(recorded[$1].exchange)
        }
        for index in order {
            let entry = recorded[index]
            history.record(
                CredentialHistory.Step(
                    index: index, role: entry.credentialRole, status: entry.response.status, rejects: entry.rejects,
                    presented: entry.credentials, issued: entry.issuedCredentials,
                    sentAt: (entry.exchange.forwarded ?? entry.exchange.received).monoNanoseconds,
                    answeredAt: (entry.exchange.responseReceived ?? entry.exchange.received).monoNanoseconds,
                    sentWall: recordedTime(of: entry.exchange)))
        }
        return history
    }

    private static func answerSeq(_ exchange: CapturedExchange) -> UInt64 {
        (exchange.responseReceived ?? exchange.forwarded ?? exchange.received).seq
    }

    /// A recorded value as the model names it: its canonical form (never the secret) and the kind
    /// the capture says (a pseudonym's, a `lineage.*` event's), a cookie's as `session`, else
    /// `access`.
    static func credential(_ value: String, capture: Capture, issued: IssuedSecrets) -> Credential {
        let name = capture.credentialKind(of: value) ?? ""
        let kind = CredentialKind(rawValue: name) ?? (name.hasPrefix("cookie") ? .session : .access)
        return Credential(kind: kind, place: CredentialHistory.place, fingerprint: issued.canonical(value, kind: name))
    }

    /// The issued values `text` holds, sorted: pseudonyms whole (`flp.access.L1.1` is not in
    /// `flp.access.L1.12`), any other value (a HAR's real token) anywhere.
    static func issuedValues(in text: String, issued: IssuedSecrets) -> [String] {
        let pseudonyms = Set(Pseudonym.occurrences(in: text))
        return issued.values.filter {
            Pseudonym.isPseudonym($0) ? pseudonyms.contains($0) : text.contains($0)
        }.sorted()
    }

    /// This run's time for `CredentialRun`: nanoseconds since the source was made, and what the
    /// run's clock (`--clock`, `--now`) reads.
    func runTime() -> CredentialRun.Time {
        CredentialRun.Time(
            elapsed: Int64(clamping: MonotonicInstant.now().nanoseconds &- startedAt.nanoseconds), now: clockNow())
    }

    /// Rule "rejected": a presented credential whose recorded rejection applies at this point of
    /// the run is answered with that rejection, whatever the path (a recorded rejection of it on
    /// this very route first, if one is unused).
    func rejectedChoice(_ shape: RequestShape, presenting presented: [Credential], _ state: inout State) -> Choice? {
        let now = runTime()
        for credential in presented {
            guard let rejection = state.run.rejection(of: credential.fingerprint, in: history, at: now) else {
                continue
            }
            let pool = routes.map { $0[shape.route] ?? [] } ?? Array(recorded.indices)
            let here = pool.first {
                state.uses[$0] == 0 && recorded[$0].rejects && recorded[$0].credentials.contains(credential)
                    && shape.matches(recorded[$0].shape, parts: settings.match)
            }
            let index = here ?? rejection.answer
            state.uses[index] += 1
            var event = matchedEvent(index, use: state.uses[index], repeated: nil)
            event.fields += [
                .string("by", "credential-state"), .string("rule", "rejected"),
                .string("credential", credential.fingerprint), .string("cause", rejection.cause.rawValue),
            ]
            return Choice(recorded: index, events: [event])
        }
        return nil
    }

    /// Rule "stand-in": a request presenting an accepted credential, on a route recorded only with
    /// another credential of the same kind that the recorded server accepted, is answered as that
    /// recording was (the first such answer not used yet, else the last). The request is compared
    /// as if it presented the recorded credential in the same place, so a credential in the body
    /// (a refresh form, RFC 6749 §6; `access_token` in a form, RFC 6750 §2.2; a JSON member) or
    /// in the query stands in as one in a header does. An answer that issues credentials and was
    /// given before in this run issues new ones, as a backend's second refresh would.
    func standInChoice(
        _ request: UpstreamRequest, _ shape: RequestShape, presenting presented: [(Credential, String)],
        _ state: inout State
    ) -> Choice? {
        let now = runTime()
        let live = presented.filter {
            history.kind(of: $0.0.fingerprint) != nil
                && state.run.rejection(of: $0.0.fingerprint, in: history, at: now) == nil
        }
        guard !live.isEmpty else { return nil }
        let pool = routes.map { $0[shape.route] ?? [] } ?? Array(recorded.indices)
        let parts = settings.match.filter { $0 != .credentials }
        var shapes: [String: RequestShape] = [:]
        var candidates: [(index: Int, mine: Credential, theirs: Credential)] = []
        for index in pool where recorded[index].accepts {
            let entry = recorded[index]
            search: for (mine, value) in live {
                for (theirs, theirValue) in zip(entry.credentials, entry.presentedValues)
                where theirs.kind == mine.kind && theirs.fingerprint != mine.fingerprint {
                    let key = value + "\u{0}" + theirValue
                    let standIn = shapes[key] ?? liveShape(request, &state, standingIn: (value, theirValue))
                    shapes[key] = standIn
                    guard standIn.matches(entry.shape, parts: parts) else { continue }
                    candidates.append((index, mine, theirs))
                    break search
                }
            }
        }
        guard let chosen = candidates.first(where: { state.uses[$0.index] == 0 }) ?? candidates.last else { return nil }
        let givenBefore = state.uses[chosen.index] > 0
        state.uses[chosen.index] += 1
        var event = matchedEvent(chosen.index, use: state.uses[chosen.index], repeated: nil)
        event.fields += [
            .string("by", "credential-state"), .string("rule", "stand-in"),
            .string("credential", chosen.mine.fingerprint), .string("stands_in_for", chosen.theirs.fingerprint),
        ]
        return Choice(
            recorded: chosen.index, events: [event],
            newGeneration: givenBefore && !recorded[chosen.index].issuedCredentials.isEmpty)
    }
}

extension ReplaySource.Recorded {
    /// The request's role for the credential model: the capture's (an auth profile's) when it
    /// has one, else what the exchange shows.
    var credentialRole: CredentialHistory.Step.Role {
        if let role = exchange.role {
            switch role {
            case FlowRole.login: return .login
            case FlowRole.refresh: return .refresh
            case FlowRole.logout: return .logout
            case FlowRole.revoke: return .revoke
            default: return .other
            }
        }
        if credentials.contains(where: { $0.kind == .refresh }) { return .refresh }
        let path = request.url.path.lowercased()
        if path.contains("logout") { return .logout }
        if path.contains("revoke") { return .revoke }
        if !issuedCredentials.isEmpty, credentials.isEmpty, (200..<300).contains(response.status) { return .login }
        return .other
    }
}
