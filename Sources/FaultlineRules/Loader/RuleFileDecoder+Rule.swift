import FaultlineConfig

/// One rule: name, phase, `match`, `when`, `then` and `actions`.
extension RuleFileDecoder {
    static let whenKeys = ["state", "times", "nth", "probability", "after", "before"]

    /// Decodes the rule at `number` (1-based). Returns nil only when the element is not an
    /// object; otherwise a rule with defaults where values were wrong (errors recorded).
    func rule(_ node: ConfigNode, number: Int, firstDefinitions: inout [String: SourceLocation]) -> Rule? {
        guard
            var reader = diagnostics.attempt({
                try ConfigObjectReader(node, name: "rule \(number)", context: "rule \(number)")
            })
        else { return nil }
        var name = "#\(number)"
        if let nameNode = diagnostics.attempt({ try reader.requiredNode("name") }),
            let written = diagnostics.attempt({ try nameNode.nonEmptyString("'name'") })
        {
            name = written
            reader.context = "rule '\(written)'"
            if let first = firstDefinitions[written] {
                diagnostics.report(
                    "rule name '\(written)' is already used at \(first.lineColumn); names must be unique within a file",
                    at: nameNode.location)
            } else {
                firstDefinitions[written] = nameNode.location
            }
        }
        for error in reader.unknownKeyErrors(allowed: Self.ruleKeys) { diagnostics.report(error) }
        let context = reader.context

        var rule = Rule(name: name, actions: [], location: node.location)
        rule.enabled = diagnostics.optional { try reader.bool("enabled") } ?? true
        let explicitPhase = reader.node("phase").flatMap { value in
            diagnostics.attempt { try value.choice("'phase'", of: ["request", "response"]) }.flatMap(
                RulePhase.init(rawValue:))
        }
        let matchNode = reader.node("match")
        if let matchNode {
            let decoder = FlowMatchDecoder(diagnostics: diagnostics, profile: profile, use: .rule)
            rule.match = decoder.decode(matchNode, name: "'match'", context: "'match' of \(context)")
        }
        if let whenNode = reader.node("when") {
            rule.conditions = conditions(whenNode, context: "'when' of \(context)")
        }
        if let thenNode = reader.node("then") {
            rule.transition = transition(thenNode, context: "'then' of \(context)")
        }
        let actions = reader.node("actions").map { self.actions($0) } ?? []
        rule.phase = phase(explicit: explicitPhase, match: matchNode, actions: actions)
        rule.actions = actions.map { $0.action(in: rule.phase) }
        checkCombinations(actions)
        return rule
    }

    private func conditions(_ node: ConfigNode, context: String) -> RuleConditions {
        var conditions = RuleConditions()
        guard let reader = diagnostics.object(node, name: "'when'", context: context, allowed: Self.whenKeys) else {
            return conditions
        }
        if let value = reader.node("state"), let states = diagnostics.attempt({ try value.stringOrList("'state'") }) {
            conditions.states = states.map(\.0)
            stateUses.append(contentsOf: states.map { (name: $0.0, location: $0.1.location) })
        }
        conditions.times = diagnostics.optional { try reader.int("times", in: 1...Int.max) }
        if let value = reader.node("nth") { conditions.nth = diagnostics.attempt { try nth(value) } }
        conditions.probability = diagnostics.optional { try reader.double("probability", in: 0...1) }
        if let value = reader.node("after") {
            conditions.after = diagnostics.attempt { try eventReference(value, name: "'after'") }
        }
        if let value = reader.node("before") {
            conditions.before = diagnostics.attempt { try eventReference(value, name: "'before'") }
        }
        return conditions
    }

    private func nth(_ node: ConfigNode) throws(ConfigError) -> [Int] {
        guard case .array(let elements) = node.kind else { return [try node.int("'nth'", in: 1...Int.max)] }
        guard !elements.isEmpty else {
            throw ConfigError.mismatch("'nth'", expected: "a positive integer or a non-empty list of them", found: node)
        }
        var positions: [Int] = []
        for element in elements { positions.append(try element.int("each entry of 'nth'", in: 1...Int.max)) }
        return positions
    }

    private func transition(_ node: ConfigNode, context: String) -> String? {
        guard let reader = diagnostics.object(node, name: "'then'", context: context, allowed: ["state"]) else {
            return nil
        }
        guard let stateNode = diagnostics.attempt({ try reader.requiredNode("state") }),
            let state = diagnostics.attempt({ try stateNode.nonEmptyString("'state'") })
        else { return nil }
        stateUses.append((name: state, location: stateNode.location))
        return state
    }

    /// `"<role>.<stage>"`, `"<role>"` (meaning `<role>.forwarded`), `"rule:<name>"`,
    /// `"delivered:<name>"` or `"mark:<label>"`. Roles are checked against the auth profile; rule
    /// names are checked once the whole file is read.
    func eventReference(_ node: ConfigNode, name: String) throws(ConfigError) -> EventReference {
        let text = try node.nonEmptyString(name)
        if let colon = text.firstIndex(of: ":") {
            let kind = String(text[..<colon])
            let rest = String(text[text.index(after: colon)...])
            switch kind {
            case "rule", "delivered", "mark":
                guard !rest.isEmpty else {
                    throw ConfigError(
                        "event '\(text)' needs a \(kind == "mark" ? "label" : "rule name") after '\(kind):'",
                        at: node.location)
                }
                if kind == "mark" { return .mark(rest) }
                ruleReferences.append((name: rest, location: node.location))
                return kind == "rule" ? .rule(rest) : .ruleDelivered(rest)
            default:
                throw ConfigError(
                    "unknown event kind '\(kind)' in '\(text)'"
                        + "\(ConfigError.didYouMean(kind, in: ["rule", "delivered", "mark"])); "
                        + "events are '<role>.<stage>', 'rule:<name>', 'delivered:<name>' or 'mark:<label>'",
                    at: node.location)
            }
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let role = parts[0]
        if let problem = profile.problem(withRole: role) {
            throw ConfigError("\(problem) (in event '\(text)')", at: node.location)
        }
        if let warning = profile.warning(withRole: role, "event '\(text)' is reached by every request") {
            diagnostics.warn(warning, at: node.location)
        }
        guard parts.count == 2 else { return .role(role, .forwarded) }
        guard let stage = FlowStage(rawValue: parts[1]) else {
            let stages = FlowStage.allCases.map(\.rawValue)
            throw ConfigError(
                "unknown stage '\(parts[1])' in event '\(text)'\(ConfigError.didYouMean(parts[1], in: stages)); "
                    + "stages are \(stages.map { "'\($0)'" }.joined(separator: ", "))",
                at: node.location)
        }
        return .role(role, stage)
    }
}
