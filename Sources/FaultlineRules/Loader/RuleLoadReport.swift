public import FaultlineConfig

/// What loading a rules folder produced: the rule set built from every file that loaded cleanly,
/// every error found (in file order, then by position), and the files that were read.
///
/// A file with any error contributes nothing to `ruleSet`, so a caller that reloads on change can
/// keep running its last good rule set when `errors` is not empty (README: "a bad edit is
/// reported and the last good rule set keeps running").
public struct RuleLoadReport: Sendable {
    /// The scenarios (in file-name order) and the profile that loaded without error.
    public var ruleSet: RuleSet
    /// Every error of every file: files in name order (the profile first), each file's errors by position.
    public var errors: [ConfigError]
    /// The `*.json5` paths read, sorted by file name (directory + "/" + name).
    public var files: [String]
    /// Problems that do not stop a file from loading but make a rule mean something else than it
    /// says (a rule on `role: "business"` in a folder without an auth profile matches every
    /// request), in the order of `errors`. `faultline rules check`, the proxy's start and its
    /// reloads print them as `file:line:column: warning: message`.
    public var warnings: [ConfigError]

    /// A report; the loader builds these.
    public init(ruleSet: RuleSet, errors: [ConfigError], files: [String], warnings: [ConfigError] = []) {
        self.ruleSet = ruleSet
        self.errors = errors
        self.files = files
        self.warnings = warnings
    }

    /// The warnings as printed: `file:line:column: warning: message`.
    public var warningLines: [String] { warnings.map { "\($0.location): warning: \($0.message)" } }

    /// True when every file loaded without error.
    public var isValid: Bool { errors.isEmpty }
}
