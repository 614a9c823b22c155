import FaultlineConfig
import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineRules
import Synchronization

/// Health, the rule list, rule and scenario switches, reload.
extension ControlAPI {
    /// `GET /v1/health`: `{status, version, listeners: [{address, mode}], rules}`.
    func health() -> ControlReply {
        .ok(
            ControlJSON.object([
                "status": .string("ok"),
                "version": .string(FaultlineVersion.string),
                "listeners": .array(
                    listeners.map { ControlJSON.object(["address": .string($0.address), "mode": .string($0.mode)]) }),
                "rules": .bool(runtime.policy != nil),
                "holds": ControlJSON.number(runtime.holds.list().count),
                "waits": ControlJSON.number(pendingWaits.load(ordering: .relaxed)),
            ]))
    }

    /// `GET /v1/rules`: every rule in rule-set order (empty without rules).
    func listRules() -> ControlReply {
        .ok(.array((runtime.policy?.engine.rules() ?? []).map(ControlJSON.rule)))
    }

    /// `POST /v1/rules/{scenario}/{rule}/enable|disable`: the rule as listed after the change.
    func setRule(scenario: String, rule: String, enabled: Bool) throws(ControlFailure) -> ControlReply {
        let engine = try requirePolicy().engine
        let id = RuleID(scenario: scenario, rule: rule)
        do throws(RuleEngineError) {
            try engine.setEnabled(enabled, rule: id)
        } catch {
            throw Self.failure(error)
        }
        guard let status = engine.rules().first(where: { $0.id == id }) else {
            // A reload removed the rule between the two calls.
            throw ControlFailure(404, "rule '\(id)' was removed by a reload")
        }
        return .ok(ControlJSON.rule(status))
    }

    /// `POST /v1/scenarios/{scenario}/enable|disable`: `{scenario, enabled}`.
    func setScenario(_ scenario: String, enabled: Bool) throws(ControlFailure) -> ControlReply {
        let engine = try requirePolicy().engine
        do throws(RuleEngineError) {
            try engine.setEnabled(enabled, scenario: scenario)
        } catch {
            throw Self.failure(error)
        }
        return .ok(ControlJSON.object(["scenario": .string(scenario), "enabled": .bool(enabled)]))
    }

    /// `POST /v1/rules/reload`: `{reloaded: true, scenarios}`, or 422 with the folder's errors
    /// while the last good rules keep running.
    func reloadRules() throws(ControlFailure) -> ControlReply {
        _ = try requirePolicy()
        guard let directory = configuration.rulesDirectory else {
            throw ControlFailure(409, "the rules were not loaded from a folder, so there is nothing to reload")
        }
        switch RulesWatcher.reload(directory: directory, runtime: runtime, trace: trace) {
        case .reloaded(let scenarios, _):
            return .ok(ControlJSON.object(["reloaded": .bool(true), "scenarios": ControlJSON.number(scenarios)]))
        case .rejected(let errors):
            return .json(
                status: 422,
                ControlJSON.object([
                    "error": .string(
                        "the rules in \(directory) have \(errors.count) error(s); the last good rules keep running"),
                    "reloaded": .bool(false),
                    "errors": .array(errors.map(JSONValue.string)),
                ]))
        case .noRules:
            throw ControlFailure.noRules
        }
    }
}
