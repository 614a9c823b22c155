import FaultlineConfig
import FaultlineCore
import FaultlineRules

/// Builds the control API's JSON answers as `JSONValue`s (written with `jsonText`), with the
/// field names the API documents (snake_case, like the trace).
enum ControlJSON {
    /// An object with members in the order written.
    static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { JSONMember(key: $0.key, value: $0.value) })
    }

    static func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    static func number(_ value: some BinaryInteger) -> JSONValue { .number(Double(value)) }

    /// `{"error": message}`, with `suggestion` when there is a nearest valid name.
    static func error(_ message: String, suggestion: String? = nil) -> JSONValue {
        guard let suggestion else { return object(["error": .string(message)]) }
        return object(["error": .string(message), "suggestion": .string(suggestion)])
    }

    /// One held flow: `{id, name, flow, connection, phase, summary, held_ms, release_on}`.
    static func hold(_ info: HoldInfo, now: MonotonicInstant = .now()) -> JSONValue {
        let heldNanoseconds = now.nanoseconds >= info.heldAt.nanoseconds ? now.nanoseconds - info.heldAt.nanoseconds : 0
        return object([
            "id": number(info.id),
            "name": .string(info.name),
            "flow": number(info.flow.rawValue),
            "connection": number(info.connection.rawValue),
            "phase": .string(info.phase.rawValue),
            "summary": .string(info.summary),
            "held_ms": number(heldNanoseconds / 1_000_000),
            "release_on": string(info.releaseOn),
        ])
    }

    /// One rule: `{id: "scenario/rule", file, phase, enabled, hits, matches}`.
    static func rule(_ status: RuleStatus) -> JSONValue {
        object([
            "id": .string(status.id.description),
            "file": .string(status.file),
            "phase": .string(status.phase.rawValue),
            "enabled": .bool(status.enabled),
            "rule_enabled": .bool(status.ruleEnabled),
            "scenario_enabled": .bool(status.scenarioEnabled),
            "hits": number(status.hits),
            "matches": number(status.matches),
        ])
    }

    /// One scenario's state: `{scenario, scope, state, lineages: [{lineage: "L1", state}]}`.
    static func state(_ info: ScenarioStateInfo) -> JSONValue {
        object([
            "scenario": .string(info.scenario),
            "scope": .string(info.scope.rawValue),
            "state": .string(info.state),
            "lineages": .array(
                info.lineages.map { object(["lineage": .string($0.lineage.description), "state": .string($0.state)]) }),
        ])
    }
}
