import FaultlineConfig
import FaultlineCore
import FaultlineServer

/// `faultline state [--json]`, `state set SCENARIO STATE [--lineage L]`, `state reset [SCENARIO]`:
/// scenario states of a running proxy.
enum StateCommand {
    static let specs: [OptionSpec] =
        [ControlCommand.jsonTableSpec]
        + OptionSpec.table("--lineage L  with set: the lineage (L1, L2, ...) of a lineage-scoped scenario")
        + ControlCommand.connectionSpecs

    static let help = helpText(
        command: "state", synopsis: "[--json] | state set SCENARIO STATE [--lineage L] | state reset [SCENARIO]",
        summary: """
            Shows every scenario's state; 'set' forces one (counters are kept); 'reset' puts one \
            scenario, or all, back in the initial state with counters and seen events cleared.
            """,
        specs: specs)

    static func run(_ arguments: [String]) -> Int32 {
        ControlCommand.run(arguments, specs: specs, command: "state", help: help, positionals: 0...3) { parsed in
            let positionals = parsed.positionals
            if parsed.has("--lineage") && positionals.first != "set" {
                throw UsageError(description: "faultline state: --lineage goes with 'state set'")
            }
            switch positionals.first {
            case nil:
                let client = try ControlCommand.client(parsed, command: "state")
                show(try ControlCommand.call(client, "GET", "/v1/state"), json: parsed.has("--json"))
            case "set":
                guard positionals.count == 3 else {
                    throw UsageError(description: "faultline state: expected 'faultline state set SCENARIO STATE'")
                }
                var members = [JSONMember(key: "state", value: .string(positionals[2]))]
                if let lineage = parsed.value("--lineage") {
                    members.append(JSONMember(key: "lineage", value: .string(lineage)))
                }
                let client = try ControlCommand.client(parsed, command: "state")
                let result = try ControlCommand.call(
                    client, "PUT", "/v1/state/\(ControlClient.pathSegment(positionals[1]))", body: .object(members))
                show(.array([result]), json: parsed.has("--json"))
            case "reset":
                guard positionals.count <= 2 else {
                    throw UsageError(description: "faultline state: expected 'faultline state reset [SCENARIO]'")
                }
                let body =
                    positionals.count == 2
                    ? JSONValue.object([JSONMember(key: "scenario", value: .string(positionals[1]))]) : .object([])
                let client = try ControlCommand.client(parsed, command: "state")
                show(try ControlCommand.call(client, "POST", "/v1/state/reset", body: body), json: parsed.has("--json"))
            default:
                throw UsageError(
                    description: "faultline state: unknown subcommand '\(positionals[0])'; expected set or reset")
            }
            return 0
        }
    }

    private static func show(_ states: JSONValue, json: Bool) {
        if json {
            ControlCommand.printJSON(states)
            return
        }
        guard !states.list.isEmpty else {
            print("no scenarios (the proxy runs without --rules, or the folder is empty)")
            return
        }
        var rows = [["SCENARIO", "STATE", "SCOPE"]]
        for state in states.list {
            rows.append([
                state["scenario"]?.stringValue ?? "", state["state"]?.stringValue ?? "",
                state["scope"]?.stringValue ?? "",
            ])
            for lineage in state["lineages"]?.list ?? [] {
                rows.append(["  " + (lineage["lineage"]?.stringValue ?? ""), lineage["state"]?.stringValue ?? "", ""])
            }
        }
        print(tableText(rows))
    }
}
