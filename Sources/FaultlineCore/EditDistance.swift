/// Suggestions for misspelled names (command-line options, rule-file keys).
public enum EditDistance {
    /// The Levenshtein distance between two strings, counted in Unicode scalars.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to `name`, if it is close enough to be a plausible typo
    /// (at most a third of the name's length, and at least 1, edits away).
    public static func nearest(to name: String, in candidates: some Sequence<String>) -> String? {
        let limit = max(1, name.count / 3)
        var best: (String, Int)? = nil
        for candidate in candidates {
            let distance = between(name, candidate)
            if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }
}
