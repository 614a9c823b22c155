import FaultlineConfig

/// Which phase a rule runs in, and which actions may share a rule.
extension RuleFileDecoder {
    /// Action pairs that cannot both happen to one flow, and why.
    static let conflictingActions: [(String, String, String)] = [
        ("respond", "duplicate", "a synthetic response never reaches upstream, so there is nothing to duplicate"),
        ("respond", "rewrite", "put the changes in the synthetic response"),
    ]
    /// Actions a rule may list more than once.
    static let repeatableActions = ["setCookie", "stripCookie"]

    /// An explicit `phase` wins, and anything that needs the other phase is an error. Otherwise the
    /// rule is in the response phase when its match uses `status` or `responseHeaders` or an
    /// action only works on a response (`rewrite`, `setCookie`, `stripCookie`, the
    /// `close-mid-body`, `truncate` and `malformed-chunk` faults), and in the request phase
    /// otherwise (README "A rule's phase is request unless..."). `duplicate` needs the request phase.
    func phase(explicit: RulePhase?, match: ConfigNode?, actions: [DecodedAction]) -> RulePhase {
        var responseReasons: [(what: String, location: SourceLocation)] = []
        for member in match?.members ?? [] where FlowMatchDecoder.responseKeys.contains(member.key) {
            responseReasons.append((what: "'\(member.key)' in 'match'", location: member.keyLocation))
        }
        for action in actions {
            if let what = action.responseOnly { responseReasons.append((what: what, location: action.keyLocation)) }
        }
        let phase = explicit ?? (responseReasons.isEmpty ? .request : .response)
        if explicit == .request {
            for reason in responseReasons {
                diagnostics.report(
                    "\(reason.what) needs the response phase, but the rule says phase: \"request\"", at: reason.location
                )
            }
        }
        if phase == .response {
            let why: String
            if explicit != nil {
                why = "the rule says phase: \"response\""
            } else {
                let first = responseReasons[0]
                why =
                    "\(first.what) at \(first.location.lineColumn) puts the rule in the response phase"
            }
            for action in actions where action.name == "duplicate" {
                diagnostics.report("'duplicate' needs the request phase, but \(why)", at: action.keyLocation)
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
