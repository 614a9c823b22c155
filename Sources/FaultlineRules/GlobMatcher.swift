/// A compiled glob (README `host` and `path`).
///
/// Theory of operation: the pattern becomes a list of tokens, and matching fills a dynamic-
/// programming table "tokens i... match text j..." from the end, so no pattern (`*a*a*a*b`) can
/// make matching exponential: the cost is at most tokens × characters.
///
/// - `*` matches any run of characters without the separator (`/` for paths, `.` for hosts);
/// - `**` matches any run, separators included;
/// - `**` followed by the separator (`/**/`, `**.`) also matches nothing at all, so
///   `/api/**/items` matches `/api/items` and `**.example.test` matches `example.test`;
/// - `?` matches one character other than the separator;
/// - `\` makes the next character literal.
struct GlobMatcher: Sendable {
    enum Mode: Sendable {
        /// Separator `/`, case-sensitive (RFC 3986 §6.2.2.1 leaves paths case-sensitive).
        case path
        /// Separator `.`, ASCII case-insensitive (RFC 3986 §3.2.2); one trailing dot ignored.
        case host
    }

    private enum Token: Sendable, Equatable {
        case literal(Unicode.Scalar)
        case one
        case star
        case globstar
        /// `**` then the separator: empty, or anything that ends with the separator.
        case globstarSeparator
    }

    let pattern: String
    let mode: Mode
    private let tokens: [Token]
    private let separator: Unicode.Scalar

    init(_ glob: Glob, mode: Mode) {
        pattern = glob.pattern
        self.mode = mode
        separator = mode == .path ? "/" : "."
        let source = mode == .host ? ASCIICase.lowered(glob.pattern) : glob.pattern
        tokens = Self.tokenize(Array(source.unicodeScalars), separator: separator)
    }

    private static func tokenize(_ scalars: [Unicode.Scalar], separator: Unicode.Scalar) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        while i < scalars.count {
            switch scalars[i] {
            case "\\" where i + 1 < scalars.count:
                tokens.append(.literal(scalars[i + 1]))
                i += 2
            case "?":
                tokens.append(.one)
                i += 1
            case "*":
                var end = i
                while end < scalars.count, scalars[end] == "*" { end += 1 }
                if end - i == 1 {
                    tokens.append(.star)
                } else if end < scalars.count, scalars[end] == separator {
                    tokens.append(.globstarSeparator)
                    end += 1
                } else {
                    tokens.append(.globstar)
                }
                i = end
            default:
                tokens.append(.literal(scalars[i]))
                i += 1
            }
        }
        return tokens
    }

    /// True when the whole of `text` matches the whole pattern.
    func matches(_ text: String) -> Bool {
        var subject = text
        if mode == .host {
            subject = ASCIICase.lowered(text)
            if subject.hasSuffix("."), subject.count > 1 { subject.removeLast() }  // absolute FQDN
        }
        let chars = Array(subject.unicodeScalars)
        let n = chars.count
        // next[j]: tokens i+1... match chars j...; row[j]: tokens i... match chars j...
        var next = [Bool](repeating: false, count: n + 1)
        next[n] = true
        var row = next
        for token in tokens.reversed() {
            row[n] = false
            switch token {
            case .star, .globstar, .globstarSeparator: row[n] = next[n]
            case .literal, .one: break
            }
            // For `**sep`: does "anything ending with sep, then tokens i+1..." start at j?
            var endsWithSeparator = false
            for j in stride(from: n - 1, through: 0, by: -1) {
                let c = chars[j]
                switch token {
                case .literal(let l): row[j] = c == l && next[j + 1]
                case .one: row[j] = c != separator && next[j + 1]
                case .star: row[j] = next[j] || (c != separator && row[j + 1])
                case .globstar: row[j] = next[j] || row[j + 1]
                case .globstarSeparator:
                    endsWithSeparator = (c == separator && next[j + 1]) || endsWithSeparator
                    row[j] = next[j] || endsWithSeparator
                }
            }
            swap(&row, &next)
        }
        return next[0]
    }
}
