/// A compiled glob (README `host` and `path`).
///
/// Theory of operation: the pattern becomes a list of tokens over UTF-8 bytes. A literal
/// prefix and suffix are checked first (most flows fail there: `/api/v1/**` against
/// `/static/app.js`). What remains is matched by filling a dynamic-programming table "tokens
/// i... match bytes j..." from the end, two rows on the stack, so no pattern (`*a*a*a*b`) can
/// make matching exponential: the cost is at most tokens × bytes.
///
/// - `*` matches any run of characters without the separator (`/` for paths, `.` for hosts);
/// - `**` matches any run, separators included;
/// - `**` followed by the separator (`/**/`, `**.`) also matches nothing at all, so
///   `/api/**/items` matches `/api/items` and `**.example.test` matches `example.test`;
/// - `?` matches one character (all its UTF-8 bytes) other than the separator;
/// - `\` makes the next character literal.
///
/// Matching bytes is sound because a literal sequence always starts with a UTF-8 lead byte,
/// which never equals a continuation byte, so a wildcard can never stop inside a character and
/// let a literal match there.
final class GlobMatcher: Sendable {
    enum Mode: Sendable {
        /// Separator `/`, case-sensitive (RFC 3986 §6.2.2.1 leaves paths case-sensitive).
        case path
        /// Separator `.`, ASCII case-insensitive (RFC 3986 §3.2.2); one trailing dot ignored.
        case host
    }

    private enum Token: Sendable, Equatable {
        case literal(UInt8)
        case one
        case star
        case globstar
        /// `**` then the separator: empty, or anything that ends with the separator.
        case globstarSeparator

        var isLiteral: Bool {
            if case .literal = self { return true }
            return false
        }
    }

    let pattern: String
    let mode: Mode
    private let separator: UInt8
    private let prefix: [UInt8]
    private let suffix: [UInt8]
    /// The tokens between the literal prefix and suffix; nil when the pattern is all literal.
    private let middle: [Token]?
    /// The pattern with escapes resolved (lowercase for hosts) when it has no wildcard: such a
    /// pattern matches only subjects equal to it in that form (`FlowFacts.hostKey` for hosts),
    /// which is what `RuleIndex` files the rule under.
    let literal: String?

    /// For a path glob whose first segment is literal, that segment: the bytes between the
    /// leading `/` and the next `/` of the literal prefix, or all of them after the `/` when the
    /// whole pattern is literal (`/api/**` gives `api`, `/health` gives `health`). Every path
    /// the glob matches starts with that segment (`RuleIndex` files the rule under it).
    var literalFirstSegment: String? {
        guard mode == .path, prefix.first == UInt8(ascii: "/") else { return nil }
        if let slash = prefix.dropFirst().firstIndex(of: UInt8(ascii: "/")) {
            return String(decoding: prefix[1..<slash], as: UTF8.self)
        }
        return middle == nil ? String(decoding: prefix.dropFirst(), as: UTF8.self) : nil
    }

    init(_ glob: Glob, mode: Mode) {
        pattern = glob.pattern
        self.mode = mode
        separator = mode == .path ? UInt8(ascii: "/") : UInt8(ascii: ".")
        let source = mode == .host ? ASCIICase.lowered(glob.pattern) : glob.pattern
        let tokens = Self.tokenize(Array(source.utf8), separator: separator)
        let leading = tokens.prefix { $0.isLiteral }
        if leading.count == tokens.count {
            prefix = leading.map(Self.byte)
            suffix = []
            middle = nil
            literal = String(decoding: prefix, as: UTF8.self)
        } else {
            let trailing = tokens.reversed().prefix { $0.isLiteral }
            prefix = leading.map(Self.byte)
            suffix = trailing.reversed().map(Self.byte)
            middle = Array(tokens[leading.count..<(tokens.count - trailing.count)])
            literal = nil
        }
    }

    private static func byte(_ token: Token) -> UInt8 {
        guard case .literal(let byte) = token else { preconditionFailure("not a literal token") }
        return byte
    }

    private static func tokenize(_ bytes: [UInt8], separator: UInt8) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\\") where i + 1 < bytes.count:
                // The escaped character may be several bytes long: all become literals.
                let length = UTF8Length.ofCharacter(startingWith: bytes[i + 1])
                let end = min(i + 1 + length, bytes.count)
                tokens.append(contentsOf: bytes[(i + 1)..<end].map(Token.literal))
                i = end
            case UInt8(ascii: "?"):
                tokens.append(.one)
                i += 1
            case UInt8(ascii: "*"):
                var end = i
                while end < bytes.count, bytes[end] == UInt8(ascii: "*") { end += 1 }
                if end - i == 1 {
                    tokens.append(.star)
                } else if end < bytes.count, bytes[end] == separator {
                    tokens.append(.globstarSeparator)
                    end += 1
                } else {
                    tokens.append(.globstar)
                }
                i = end
            default:
                tokens.append(.literal(bytes[i]))
                i += 1
            }
        }
        return tokens
    }

    /// True when the whole of `text` matches the whole pattern.
    func matches(_ text: String) -> Bool {
        // Native strings hand out their UTF-8 in place; others are copied once.
        if let result = text.utf8.withContiguousStorageIfAvailable(matchesSubject) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(matchesSubject)
    }

    private func matchesSubject(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var subject = bytes
        if mode == .host, subject.count > 1, subject[subject.count - 1] == UInt8(ascii: ".") {
            subject = UnsafeBufferPointer(rebasing: subject.dropLast())  // absolute FQDN
        }
        return matches(subject)
    }

    private func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let folding = mode == .host
        guard let middle else { return text.count == prefix.count && equal(text, 0, prefix, folding) }
        guard text.count >= prefix.count + suffix.count, equal(text, 0, prefix, folding),
            equal(text, text.count - suffix.count, suffix, folding)
        else { return false }
        let body = UnsafeBufferPointer(rebasing: text[prefix.count..<(text.count - suffix.count)])
        return fill(middle, body, folding)
    }

    private func equal(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ literal: [UInt8], _ folding: Bool) -> Bool {
        for offset in literal.indices where Self.fold(text[start + offset], folding) != literal[offset] { return false }
        return true
    }

    @inline(__always)
    private static func fold(_ byte: UInt8, _ folding: Bool) -> UInt8 {
        folding && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private func fill(_ tokens: [Token], _ text: UnsafeBufferPointer<UInt8>, _ folding: Bool) -> Bool {
        let n = text.count
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: 2 * (n + 1)) { storage in
            // next[j]: tokens i+1... match bytes j...; row[j]: tokens i... match bytes j...
            var next = UnsafeMutableBufferPointer(rebasing: storage[0...n])
            var row = UnsafeMutableBufferPointer(rebasing: storage[(n + 1)...])
            next.initialize(repeating: false)
            row.initialize(repeating: false)
            next[n] = true
            for token in tokens.reversed() {
                switch token {
                case .star, .globstar, .globstarSeparator: row[n] = next[n]
                case .literal, .one: row[n] = false
                }
                var endsWithSeparator = false  // for `**sep`: "...sep, then tokens i+1..." starts at j
                var j = n - 1
                while j >= 0 {
                    let c = Self.fold(text[j], folding)
                    switch token {
                    case .literal(let l): row[j] = c == l && next[j + 1]
                    case .one:
                        let end = j + UTF8Length.ofCharacter(startingWith: c)
                        row[j] = !UTF8Length.isContinuation(c) && c != separator && end <= n && next[end]
                    case .star: row[j] = next[j] || (c != separator && row[j + 1])
                    case .globstar: row[j] = next[j] || row[j + 1]
                    case .globstarSeparator:
                        endsWithSeparator = (c == separator && next[j + 1]) || endsWithSeparator
                        row[j] = next[j] || endsWithSeparator
                    }
                    j -= 1
                }
                swap(&row, &next)
            }
            return next[0]
        }
    }
}

/// UTF-8 sequence lengths (RFC 3629 §3), for `?` and escapes.
enum UTF8Length {
    static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    /// 1 for ASCII, continuation and invalid bytes, else 2 to 4 from the lead byte.
    static func ofCharacter(startingWith byte: UInt8) -> Int {
        switch byte {
        case 0xC0...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF7: return 4
        default: return 1
        }
    }
}
