import FaultlineConfig
import FaultlineRules

/// `faultline rules check DIR`: validate a rules folder the way `run --rules` loads it. The
/// subcommands that change a running proxy's rules are in `RulesControlCommand`.
enum RulesCommand {
    static let help = """
        usage: faultline rules check DIR
               faultline rules enable|disable SCENARIO[/RULE]
               faultline rules list [--json]
               faultline rules reload

        check    loads every *.json5 file in DIR (scenarios, and auth-profile.json5) and reports every
                 error as file:line:column: message, and what loads but cannot mean what it says as
                 file:line:column: warning: message (a rule on role 'business' without an auth
                 profile matches every request). Exits 0 when the folder is valid (warnings or not),
                 1 when it has errors, 2 on bad usage.
        enable   switches a scenario (SCENARIO) or one rule (SCENARIO/RULE) of the running proxy on;
        disable  ... or off, until a reload changes that scenario.
        list     lists the running proxy's rules with their switches and counters.
        reload   reloads the running proxy's rules folder now; a folder with errors is refused and
                 the last good rules keep running.

        The running proxy is found through --control-file PATH (default $FAULTLINE_HOME/control.json
        or ~/.faultline/control.json), or --control URL --token TOKEN.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h" else {
            print(help)
            return arguments.isEmpty ? 2 : 0
        }
        if ["enable", "disable", "list", "reload"].contains(first) {
            return RulesControlCommand.run(first, Array(arguments.dropFirst()))
        }
        if first == "check", arguments.count == 2, ["--help", "-h"].contains(arguments[1]) {
            print(help)
            return 0
        }
        guard first == "check", arguments.count == 2 else {
            printError("faultline rules: expected 'faultline rules check DIR' or enable, disable, list, reload; see 'faultline rules --help'")
            return 2
        }
        let report = RuleSetLoader.load(directory: arguments[1])
        for error in report.errors { printError(error.description) }
        for warning in report.warningLines { printError(warning) }
        if !report.errors.isEmpty {
            printError("faultline rules: \(report.errors.count) error(s) in \(arguments[1])")
            return 1
        }
        let rules = report.ruleSet.scenarios.reduce(0) { $0 + $1.rules.count }
        let profile = report.ruleSet.profile == nil ? "no auth profile" : "an auth profile"
        let warnings = report.warnings.isEmpty ? "" : ", \(report.warnings.count) warning(s)"
        print("\(arguments[1]): \(report.ruleSet.scenarios.count) scenarios, \(rules) rules, \(profile); no errors\(warnings)")
        return 0
    }
}
