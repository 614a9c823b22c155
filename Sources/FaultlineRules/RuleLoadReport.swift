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

    /// A report; the loader builds these.
    public init(ruleSet: RuleSet, errors: [ConfigError], files: [String]) {
        self.ruleSet = ruleSet
        self.errors = errors
        self.files = files
    }

    /// True when every file loaded without error.
    public var isValid: Bool { errors.isEmpty }
}
