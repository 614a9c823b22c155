import FaultlineConfig

/// Scenario states (WireMock-style): declared up front with `states`, or declared implicitly by
/// use.
///
/// With `states`, `initialState` is required (README) and every state named in `initialState`,
/// `when.state` and `then.state` must be declared. Without `states`, every state named in `when`
/// or `then` exists, and the scenario starts in `initialState` or, absent that, in "started"
/// (WireMock's `Scenario.STARTED`). Either way the loaded `Scenario` lists every state, the
/// initial one first when implicit, and always has an `initialState`.
extension RuleFileDecoder {
    /// The name scenarios start in when they declare no states and no `initialState`.
    static let implicitInitialState = "started"

    func resolveStates(_ reader: ConfigObjectReader, into scenario: inout Scenario) {
        let initialNode = reader.node("initialState")
        let initial = initialNode.flatMap { node in diagnostics.attempt { try node.nonEmptyString("'initialState'") } }
        guard let statesMember = reader.member("states") else {
            var states = [initial ?? Self.implicitInitialState]
            for use in stateUses where !states.contains(use.name) { states.append(use.name) }
            scenario.states = states
            scenario.initialState = states[0]
            return
        }
        guard let declared = declaredStates(statesMember.value) else { return }
        scenario.states = declared
        scenario.initialState = initial
        if initialNode == nil {
            diagnostics.report("'initialState' is required when 'states' is given", at: statesMember.keyLocation)
        }
        if let initial, let initialNode, !declared.contains(initial) {
            diagnostics.report(unknownState(initial, declared: declared), at: initialNode.location)
        }
        for use in stateUses where !declared.contains(use.name) {
            diagnostics.report(unknownState(use.name, declared: declared), at: use.location)
        }
    }

    private func declaredStates(_ node: ConfigNode) -> [String]? {
        guard let elements = diagnostics.attempt({ try node.array("'states'") }) else { return nil }
        guard !elements.isEmpty else {
            diagnostics.report(
                ConfigError.mismatch("'states'", expected: "a non-empty list of state names", found: node))
            return nil
        }
        var states: [String] = []
        for element in elements {
            guard let state = diagnostics.attempt({ try element.nonEmptyString("each entry of 'states'") }) else {
                continue
            }
            if states.contains(state) {
                diagnostics.report("state '\(state)' is listed twice in 'states'", at: element.location)
            } else {
                states.append(state)
            }
        }
        return states
    }

    private func unknownState(_ name: String, declared: [String]) -> String {
        let list = declared.map { "'\($0)'" }.joined(separator: ", ")
        return "unknown state '\(name)'\(ConfigError.didYouMean(name, in: declared)); the declared states are \(list)"
    }
}
