/// A host-name glob for settings outside rule files, such as the proxy's `--intercept` and
/// `--ignore` lists: the same syntax and matching as a rule's `host` (`*` within one label,
/// `**` across labels, `**.example.test` also matching `example.test`, ASCII case-insensitive,
/// one trailing dot ignored).
public struct HostGlob: Sendable, CustomStringConvertible {
    private let matcher: GlobMatcher

    /// Compiles `pattern`; every string is a valid glob (`\` escapes the next character).
    public init(_ pattern: String) {
        matcher = GlobMatcher(Glob(pattern), mode: .host)
    }

    /// The pattern as written.
    public var description: String { matcher.pattern }

    /// True when `host` (a name, or an IP literal without brackets) matches the whole pattern.
    public func matches(_ host: String) -> Bool {
        matcher.matches(host)
    }
}
