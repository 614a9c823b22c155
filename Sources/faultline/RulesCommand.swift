import FaultlineConfig
import FaultlineRules

/// `faultline rules check DIR`: validate a rules folder the way `run --rules` loads it.
enum RulesCommand {
    static let help = """
        usage: faultline rules check DIR

        Loads every *.json5 file in DIR (scenarios, and auth-profile.json5) and reports every error as
        file:line:column: message. Exits 0 when the folder is valid, 1 when it has errors, 2 on bad usage.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h" else {
            print(help)
            return arguments.isEmpty ? 2 : 0
        }
        guard first == "check", arguments.count == 2 else {
            printError("faultline rules: expected 'faultline rules check DIR'; see 'faultline rules --help'")
            return 2
        }
        let report = RuleSetLoader.load(directory: arguments[1])
        for error in report.errors { printError(error.description) }
        if !report.errors.isEmpty {
            printError("faultline rules: \(report.errors.count) error(s) in \(arguments[1])")
            return 1
        }
        let rules = report.ruleSet.scenarios.reduce(0) { $0 + $1.rules.count }
        let profile = report.ruleSet.profile == nil ? "no auth profile" : "an auth profile"
        print("\(arguments[1]): \(report.ruleSet.scenarios.count) scenarios, \(rules) rules, \(profile); no errors")
        return 0
    }
}
