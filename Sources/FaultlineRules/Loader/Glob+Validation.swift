/// Load-time checks on glob patterns, so a pattern that can never work is reported with its
/// position instead of silently matching nothing.
extension Glob {
    /// Nil when the pattern is usable, otherwise why not: it is empty, uses `***` (neither `*`
    /// nor `**`), or opens a `[` character class that is empty or never closed.
    static func problem(in pattern: String) -> String? {
        guard !pattern.isEmpty else { return "a glob must not be empty" }
        if pattern.contains("***") {
            return "'***' is not a glob operator: use '*' within a segment or '**' across segments"
        }
        let scalars = Array(pattern.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "[" else {
                index += 1
                continue
            }
            let open = index
            index += 1
            if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" { index += 1 }
            let firstMember = index
            while index < scalars.count, scalars[index] != "]" { index += 1 }
            guard index < scalars.count else { return "the '[' at character \(open + 1) has no closing ']'" }
            if index == firstMember { return "the character class at character \(open + 1) is empty" }
            index += 1
        }
        return nil
    }
}

/// Load-time check on regular expressions, with the syntax the engine uses (Swift `Regex`).
extension RegexPattern {
    /// Nil when the pattern compiles, otherwise the compiler's reason.
    static func problem(in pattern: String) -> String? {
        do {
            _ = try Regex(pattern)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
