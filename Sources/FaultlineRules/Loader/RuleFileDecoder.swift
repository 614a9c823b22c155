import FaultlineConfig

/// Decodes one scenario file into a `Scenario`, collecting every error.
///
/// Theory of operation: the file is parsed (a syntax error ends decoding there: nothing after it
/// can be trusted), then each key is decoded independently; a broken value is recorded and
/// replaced by its default so the other keys are still checked. Checks that need the whole file
/// (state names, `rule:<name>` references, duplicate rule names) run once every rule is read.
/// The scenario is returned only when no error was found.
final class RuleFileDecoder {
    static let scenarioKeys = [
        "$schema", "scenario", "description", "enabled", "states", "initialState", "scope", "seed", "rules",
    ]
    static let ruleKeys = ["name", "enabled", "phase", "match", "when", "then", "actions"]
    /// Seeds must survive the trip through a double exactly.
    static let maximumSeed = 9_007_199_254_740_991

    /// The outcome for one file, with what the folder-level checks need.
    struct Outcome {
        var scenario: Scenario?
        var errors: [ConfigError]
        /// Problems that do not stop the scenario from loading, by position.
        var warnings: [ConfigError] = []
        /// The scenario name (written or defaulted), when it could be determined.
        var name: String?
        /// Where the name is written (the `scenario` key), or the file's 1:1 when defaulted.
        var nameLocation: SourceLocation
    }

    let file: String
    /// The folder `bodyFile` paths are relative to.
    let folder: String
    let profile: ProfileKnowledge
    let diagnostics = LoaderDiagnostics()
    /// State names used in `when.state` and `then.state`, in file order.
    var stateUses: [(name: String, location: SourceLocation)] = []
    /// Names used in `rule:<name>` event references, checked once all rules are known.
    var ruleReferences: [(name: String, location: SourceLocation)] = []

    init(file: String, folder: String, profile: ProfileKnowledge) {
        self.file = file
        self.folder = folder
        self.profile = profile
    }

    var fileStart: SourceLocation { SourceLocation(file: file, line: 1, column: 1) }

    /// The file name without its folder and `.json5`: the default scenario name.
    var defaultName: String {
        let base = file.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? file
        return base.hasSuffix(".json5") ? String(base.dropLast(6)) : base
    }

    func decode(_ bytes: [UInt8]) -> Outcome {
        let root: ConfigNode
        do {
            root = try JSON5.parse(bytes, file: file)
        } catch {
            return Outcome(scenario: nil, errors: [error], name: nil, nameLocation: fileStart)
        }
        guard
            let reader = diagnostics.object(
                root, name: "a scenario file", context: "the scenario", allowed: Self.scenarioKeys)
        else {
            return Outcome(scenario: nil, errors: diagnostics.sortedErrors, name: nil, nameLocation: fileStart)
        }
        var scenario = Scenario(name: defaultName, file: file)
        var nameLocation = fileStart
        if let member = reader.member("scenario") {
            nameLocation = member.keyLocation
            scenario.name = diagnostics.attempt { try member.value.nonEmptyString("'scenario'") } ?? defaultName
        }
        _ = diagnostics.optional { try reader.string("$schema") }
        scenario.description = diagnostics.optional { try reader.string("description") }
        scenario.enabled = diagnostics.optional { try reader.bool("enabled") } ?? true
        if let value = reader.node("scope") {
            let scope = diagnostics.attempt { try value.choice("'scope'", of: ["global", "lineage"]) }
            scenario.scope = scope.flatMap(Scenario.Scope.init(rawValue:)) ?? .global
            if scenario.scope == .lineage, profile.isAbsent {
                diagnostics.report(
                    "scope \"lineage\" needs an auth profile to follow credential lineages: add auth-profile.json5 to the rules folder",
                    at: value.location)
            }
        }
        if let seed = diagnostics.optional({ try reader.int("seed", in: 0...Self.maximumSeed) }) {
            scenario.seed = UInt64(seed)
        }
        scenario.rules = rules(reader)
        checkRuleReferences(scenario.rules.map(\.name))
        resolveStates(reader, into: &scenario)
        let errors = diagnostics.sortedErrors
        return Outcome(
            scenario: errors.isEmpty ? scenario : nil, errors: errors, warnings: diagnostics.sortedWarnings,
            name: scenario.name, nameLocation: nameLocation)
    }

    private func rules(_ reader: ConfigObjectReader) -> [Rule] {
        guard let elements = diagnostics.attempt({ try reader.requiredNode("rules").array("'rules'") }) else {
            return []
        }
        var firstDefinitions: [String: SourceLocation] = [:]
        var rules: [Rule] = []
        for (offset, element) in elements.enumerated() {
            if let rule = rule(element, number: offset + 1, firstDefinitions: &firstDefinitions) { rules.append(rule) }
        }
        return rules
    }

    private func checkRuleReferences(_ names: [String]) {
        for reference in ruleReferences where !names.contains(reference.name) {
            diagnostics.report(
                "unknown rule '\(reference.name)' in this scenario\(ConfigError.didYouMean(reference.name, in: names))",
                at: reference.location)
        }
    }
}
