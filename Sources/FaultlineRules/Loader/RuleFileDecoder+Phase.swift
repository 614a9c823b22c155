import FaultlineConfig

/// Which phase a rule runs in, and which actions may share a rule.
extension RuleFileDecoder {
    /// Action pairs that cannot both happen to one flow, and why.
    static let conflictingActions: [(String, String, String)] = [
        ("respond", "duplicate", "a synthetic response never reaches upstream, so there is nothing to duplicate"),
        ("respond", "rewrite", "put the changes in the synthetic response"),
        ("respond", "route", "a synthetic response never reaches upstream, so there is nothing to route"),
        ("rateLimit", "duplicate", "a synthetic response never reaches upstream, so there is nothing to duplicate"),
        ("rateLimit", "rewrite", "put the changes in the rateLimit's headers or body"),
        ("rateLimit", "route", "a synthetic response never reaches upstream, so there is nothing to route"),
        ("respond", "rateLimit", "a rule answers once: give the 429 or 503 by one of them"),
    ]
    /// Actions a rule may list more than once.
    static let repeatableActions = ["setCookie", "stripCookie"]

    /// Actions that act on a request before it goes upstream, so they need the request phase.
    static let requestOnlyActions = ["duplicate", "route"]

    /// A place in a rule that ties it to one phase, as messages name it.
    private struct PhaseReason {
        let what: String
        let location: SourceLocation
    }

    /// An explicit `phase` wins, and anything that needs the other phase is an error. Otherwise the
    /// rule is in the response phase when its match uses `status` or `responseHeaders`, an action
    /// only works on a response (`setCookie`, `stripCookie`, the `close-mid-body`, `truncate` and
    /// `malformed-chunk` faults) or its `rewrite` gives `status`; in the request phase when its
    /// `rewrite` gives `method`, `path` or `query` (both at once is an error); else a `rewrite` of
    /// headers or the body alone edits the response (what it always did), and any other rule is in
    /// the request phase (README "A rule's phase is request unless..."). `duplicate` and `route`
    /// need the request phase.
    func phase(explicit: RulePhase?, match: ConfigNode?, actions: [DecodedAction]) -> RulePhase {
        var responseReasons: [PhaseReason] = []
        var requestReasons: [PhaseReason] = []
        // A rewrite that gives only headers or a body: the response, unless something else decides.
        var leaning: PhaseReason?
        // Where the rewrite's own `status` is, for the message when it also edits the request.
        var rewriteStatus: SourceLocation?
        for member in match?.members ?? [] where FlowMatchDecoder.responseKeys.contains(member.key) {
            responseReasons.append(PhaseReason(what: "'\(member.key)' in 'match'", location: member.keyLocation))
        }
        for action in actions {
            if let what = action.responseOnly {
                responseReasons.append(PhaseReason(what: what, location: action.keyLocation))
            }
            guard let rewrite = action.rewrite else { continue }
            if let status = rewrite.statusKey {
                responseReasons.append(PhaseReason(what: "'status' in 'rewrite'", location: status))
                rewriteStatus = status
            }
            for key in rewrite.requestKeys {
                requestReasons.append(PhaseReason(what: "'\(key.key)' in 'rewrite'", location: key.location))
            }
            if rewrite.statusKey == nil, rewrite.requestKeys.isEmpty, leaning == nil {
                leaning = PhaseReason(what: "'rewrite'", location: action.keyLocation)
            }
        }
        // What puts the rule in the response phase when it does not say: a response reason, else
        // (with no request reason) a rewrite of headers or the body alone.
        var cause = responseReasons.first
        var leansOnRewrite = false
        if cause == nil, requestReasons.isEmpty, let leaning {
            cause = leaning
            leansOnRewrite = true
        }
        let phase = explicit ?? (cause == nil ? .request : .response)
        switch explicit {
        case .request?:
            for reason in responseReasons {
                diagnostics.report(
                    "\(reason.what) needs the response phase, but the rule says phase: \"request\"", at: reason.location
                )
            }
        case .response?:
            for reason in requestReasons {
                diagnostics.report(
                    "\(reason.what) needs the request phase, but the rule says phase: \"response\"", at: reason.location
                )
            }
        case nil:
            guard let cause, !requestReasons.isEmpty else { break }
            for reason in requestReasons {
                if let rewriteStatus {
                    diagnostics.report(
                        "\(reason.what) changes the request, but 'status' at \(rewriteStatus.lineColumn) changes the "
                            + "response: one rewrite edits one of them; put each in a rule of its own "
                            + "(phase: \"request\" and phase: \"response\")",
                        at: reason.location)
                } else {
                    diagnostics.report(
                        "\(reason.what) needs the request phase, but \(cause.what) at \(cause.location.lineColumn) "
                            + "puts the rule in the response phase",
                        at: reason.location)
                }
            }
        }
        if phase == .response {
            var why = "the rule says phase: \"response\""
            if explicit == nil, let cause {
                why = "\(cause.what) at \(cause.location.lineColumn) puts the rule in the response phase"
                if leansOnRewrite { why += " (to rewrite the request instead, say phase: \"request\")" }
            }
            for action in actions where Self.requestOnlyActions.contains(action.name) {
                diagnostics.report("'\(action.name)' needs the request phase, but \(why)", at: action.keyLocation)
            }
        }
        return phase
    }

    func checkCombinations(_ actions: [DecodedAction]) {
        var firstLocations: [String: SourceLocation] = [:]
        for action in actions {
            if let first = firstLocations[action.name] {
                if !Self.repeatableActions.contains(action.name) {
                    diagnostics.report(
                        "a rule can have only one '\(action.name)' action (the first is at \(first.lineColumn))",
                        at: action.keyLocation)
                }
            } else {
                firstLocations[action.name] = action.keyLocation
            }
        }
        for (one, other, why) in Self.conflictingActions {
            guard let oneLocation = firstLocations[one], let otherLocation = firstLocations[other] else { continue }
            let oneIsFirst = (oneLocation.line, oneLocation.column) < (otherLocation.line, otherLocation.column)
            let (earlier, later, location) = oneIsFirst ? (one, other, otherLocation) : (other, one, oneLocation)
            diagnostics.report("'\(later)' cannot be combined with '\(earlier)': \(why)", at: location)
        }
    }
}
