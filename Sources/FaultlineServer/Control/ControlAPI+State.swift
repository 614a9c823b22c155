import FaultlineConfig
import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineRules
import FaultlineTrace

/// Scenario states and marks.
extension ControlAPI {
    /// `GET /v1/state`: every scenario's state (empty without rules).
    func listStates() -> ControlReply {
        .ok(.array((runtime.policy?.engine.states() ?? []).map(ControlJSON.state)))
    }

    /// `PUT /v1/state/{scenario}` with `{state, lineage?}`: the scenario's states after the change.
    func setState(_ scenario: String, _ request: ControlRequest) throws(ControlFailure) -> ControlReply {
        let engine = try requirePolicy().engine
        guard let body = try ControlBody.object(request, allowed: ["state", "lineage"], required: true) else {
            preconditionFailure("a required body came back nil")
        }
        let (state, lineage) = try ControlBody.read { () throws(ConfigError) -> (String, LineageID?) in
            let state = try body.requiredString("state")
            guard let node = body.node("lineage") else { return (state, nil) }
            if case .string(let text) = node.kind, let lineage = LineageID(text) { return (state, lineage) }
            if case .number = node.kind { return (state, LineageID(try node.int("'lineage'", in: 1...Int.max))) }
            throw ConfigError.mismatch("'lineage'", expected: "a lineage such as \"L1\"", found: node)
        }
        do throws(RuleEngineError) {
            try engine.setState(state, scenario: scenario, lineage: lineage)
        } catch {
            throw Self.failure(error)
        }
        guard let info = engine.states().first(where: { $0.scenario == scenario }) else {
            throw ControlFailure(404, "scenario '\(scenario)' was removed by a reload")
        }
        return .ok(ControlJSON.state(info))
    }

    /// `POST /v1/state/reset` with optional `{scenario}`: every scenario's state after the reset.
    func resetState(_ request: ControlRequest) throws(ControlFailure) -> ControlReply {
        let engine = try requirePolicy().engine
        let body = try ControlBody.object(request, allowed: ["scenario"], required: false)
        let scenario = try ControlBody.read { () throws(ConfigError) in try body?.string("scenario") }
        do throws(RuleEngineError) {
            try engine.resetState(scenario: scenario)
        } catch {
            throw Self.failure(error)
        }
        return .ok(.array(engine.states().map(ControlJSON.state)))
    }

    /// `POST /v1/marks` with `{label, attributes?}`: traces a `mark` event (the label and the
    /// attributes as fields) and publishes `mark:<label>`, which `after`/`before` conditions and
    /// `release: { on: "mark:<label>" }` holds wait for. Works without rules too.
    func mark(_ request: ControlRequest) throws(ControlFailure) -> ControlReply {
        guard let body = try ControlBody.object(request, allowed: ["label", "attributes"], required: true) else {
            preconditionFailure("a required body came back nil")
        }
        let (label, attributes) = try ControlBody.read { () throws(ConfigError) -> (String, [(String, String)]) in
            let label = try body.requiredString("label")
            if label.isEmpty, let node = body.node("label") {
                throw ConfigError.mismatch("'label'", expected: "a non-empty string", found: node)
            }
            var attributes: [(String, String)] = []
            if let object = try body.object("attributes", context: "'attributes'") {
                for member in object.members {
                    if Mark.reservedKeys.contains(member.key) {
                        throw ConfigError(
                            "attribute '\(member.key)' is reserved by the trace; use another name",
                            at: member.keyLocation)
                    }
                    attributes.append((member.key, try member.value.string("attribute '\(member.key)'")))
                }
            }
            return (label, attributes)
        }
        Mark.record(label, attributes: attributes, trace: trace, rules: runtime)
        return .ok(
            ControlJSON.object([
                "marked": .string(label),
                "attributes": .object(attributes.map { JSONMember(key: $0.0, value: .string($0.1)) }),
            ]))
    }
}
