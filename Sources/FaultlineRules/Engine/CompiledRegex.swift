/// A rule's regular expression, compiled once when the rule set is installed.
///
/// Search semantics: the pattern matches when it matches anywhere in the text (anchor it with
/// `^...$` to test the whole value), the way grep and most proxies read a pattern.
///
/// Not Sendable: `Regex` is not, so compiled matchers live inside the engine's (or tracker's)
/// lock and are only used there. A class so that a rule without a regex costs an optional pointer
/// check, not a value-witness call on `Regex`.
final class CompiledRegex {
    let pattern: String
    /// nil when the pattern does not compile here. The loader compiles every pattern before a
    /// rule set exists, so this only happens if the loader and the engine disagree; such a test
    /// then never matches instead of matching everything.
    private let regex: Regex<AnyRegexOutput>?

    init(_ pattern: RegexPattern) {
        self.pattern = pattern.pattern
        regex = try? Regex(pattern.pattern)
    }

    func matches(_ text: String) -> Bool {
        guard let regex else { return false }
        return text.contains(regex)
    }
}
