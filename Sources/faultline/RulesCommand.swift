import FaultlineCapture
import FaultlineConfig
import FaultlineRules
import Foundation

/// `faultline rules check DIR`: validate a rules folder the way `run --rules` loads it. The
/// subcommands that change a running proxy's rules are in `RulesControlCommand`.
enum RulesCommand {
    static let help = """
        usage: faultline rules check DIR
               faultline rules from-capture CAPTURE [-o FILE] [--hold-timeout SECONDS]
               faultline rules enable|disable SCENARIO[/RULE]
               faultline rules list [--json]
               faultline rules reload

        check    loads every *.json5 file in DIR (scenarios, and auth-profile.json5) and reports every
                 error as file:line:column: message, and what loads but cannot mean what it says as
                 file:line:column: warning: message (a rule on role 'business' without an auth
                 profile matches every request). Exits 0 when the folder is valid (warnings or not),
                 1 when it has errors, 2 on bad usage.
        from-capture
                 writes a scenario of holds that replays CAPTURE's delivery order against a live
                 backend: each response that was delivered after other requests, responses or
                 marks happened during its flight is held until the last of them happens again
                 (each hold gives up after --hold-timeout, default 10 s). To FILE, or standard output.
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
        if first == "from-capture" { return fromCapture(Array(arguments.dropFirst())) }
        if first == "check", arguments.count == 2, ["--help", "-h"].contains(arguments[1]) {
            print(help)
            return 0
        }
        guard first == "check", arguments.count == 2 else {
            printError(
                "faultline rules: expected 'faultline rules check DIR' or enable, disable, list, reload; see 'faultline rules --help'"
            )
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
        print(
            "\(arguments[1]): \(report.ruleSet.scenarios.count) scenarios, \(rules) rules, \(profile); no errors\(warnings)"
        )
        return 0
    }

    static let fromCaptureSpecs: [OptionSpec] =
        OptionSpec.table(
            """
            -o FILE                 write the scenario to FILE (default: standard output)
            --hold-timeout SECONDS  each hold's deadline (default 10)
            """) + [.helpOption]

    /// `faultline rules from-capture CAPTURE`: the holds that stage a capture's order (`OrderRules`),
    /// checked by the rules loader before they are written.
    static func fromCapture(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        let capture: Capture
        var timeout = 10
        do {
            guard
                let given = try ParsedArguments.parse(
                    arguments, specs: fromCaptureSpecs, command: "rules from-capture", help: help)
            else { return 0 }
            parsed = given
            guard parsed.positionals.count == 1 else {
                throw UsageError(
                    description: "faultline rules from-capture: expected one CAPTURE file; see 'faultline rules --help'"
                )
            }
            if let text = parsed.value("--hold-timeout") {
                guard let seconds = Int(text), (1...3600).contains(seconds) else {
                    throw UsageError(
                        description:
                            "faultline rules from-capture: --hold-timeout takes whole seconds from 1 to 3600, not '\(text)'"
                    )
                }
                timeout = seconds
            }
            do { capture = try CaptureLoader.load(path: parsed.positionals[0]) } catch {
                throw UsageError(description: "faultline rules from-capture: \(error)")
            }
        } catch {
            printError("\(error)")
            return 2
        }
        let (text, holds) = OrderRules.scenario(from: capture, holdTimeout: timeout)
        let file = parsed.value("-o").map { ($0 as NSString).lastPathComponent } ?? "from-capture.json5"
        // Role events need a profile to load; the capture's own roles stand in for the user's.
        let anything = [FlowMatch()]
        let custom = Set(capture.exchanges.compactMap(\.role)).subtracting([
            "business", "login", "refresh", "logout", "revoke",
        ])
        let profile = AuthProfile(
            login: anything, refresh: anything, logout: anything, revoke: anything,
            roles: custom.sorted().map { ProfileRole(name: $0, matches: anything) }, file: "auth-profile.json5")
        let (_, problems) = RuleSetLoader.loadScenario(text: text, file: file, profile: profile)
        guard problems.isEmpty else {
            // Our own output must load; a capture that makes it fail is a bug to report.
            for problem in problems { printError(problem.description) }
            printError(
                "faultline rules from-capture: the generated scenario does not load (a bug: please report it with the capture's event kinds)"
            )
            return 1
        }
        if let path = parsed.value("-o") {
            do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                printError("faultline rules from-capture: cannot write \(path): \(error.localizedDescription)")
                return 1
            }
            printError("faultline rules from-capture: \(holds) hold(s) written to \(path)")
        } else {
            print(text, terminator: "")
        }
        return 0
    }
}
