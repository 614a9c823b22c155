import FaultlineConfig
import FaultlineCore
import FaultlineServer

/// `faultline rules enable|disable SCENARIO[/RULE]`, `rules list`, `rules reload`: the rules of a
/// running proxy (beside `rules check`, which reads a folder).
enum RulesControlCommand {
    static let specs: [OptionSpec] =
        [ControlCommand.jsonSpec] + ControlCommand.connectionSpecs

    static func run(_ subcommand: String, _ arguments: [String]) -> Int32 {
        let wanted = subcommand == "enable" || subcommand == "disable" ? 1...1 : 0...0
        return ControlCommand.run(
            arguments, specs: specs, command: "rules \(subcommand)", help: RulesCommand.help, positionals: wanted
        ) { parsed in
            let client = try ControlCommand.client(parsed, command: "rules \(subcommand)")
            switch subcommand {
            case "list":
                let rules = try ControlCommand.call(client, "GET", "/v1/rules")
                if parsed.has("--json") { ControlCommand.printJSON(rules); return 0 }
                guard !rules.list.isEmpty else {
                    print("no rules (the proxy runs without --rules, or the folder is empty)")
                    return 0
                }
                let rows = rules.list.map { rule in
                    [
                        rule["id"]?.stringValue ?? "", rule["phase"]?.stringValue ?? "",
                        rule["enabled"]?.boolValue == true ? "on" : "off",
                        "\(rule["hits"]?.integer ?? 0)", "\(rule["matches"]?.integer ?? 0)",
                    ]
                }
                print(tableText([["RULE", "PHASE", "ENABLED", "HITS", "MATCHES"]] + rows))
            case "reload":
                let result = try ControlCommand.call(client, "POST", "/v1/rules/reload")
                print("reloaded \(result["scenarios"]?.integer ?? 0) scenario(s)")
            default:
                let target = parsed.positionals[0]
                let path: String
                if let slash = target.firstIndex(of: "/") {
                    let scenario = String(target[..<slash])
                    let rule = String(target[target.index(after: slash)...])
                    guard !scenario.isEmpty, !rule.isEmpty else {
                        throw UsageError(
                            description: "faultline rules: expected SCENARIO or SCENARIO/RULE, not '\(target)'")
                    }
                    path =
                        "/v1/rules/\(ControlClient.pathSegment(scenario))/\(ControlClient.pathSegment(rule))/\(subcommand)"
                } else {
                    path = "/v1/scenarios/\(ControlClient.pathSegment(target))/\(subcommand)"
                }
                let result = try ControlCommand.call(client, "POST", path)
                if parsed.has("--json") { ControlCommand.printJSON(result); return 0 }
                let kind = target.contains("/") ? "rule" : "scenario"
                print("\(subcommand)d \(kind) \(target)")
            }
            return 0
        }
    }
}
