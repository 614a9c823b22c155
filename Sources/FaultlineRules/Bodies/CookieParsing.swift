/// Cookies as requests send them and responses set them (RFC 6265).
///
/// Cookie values are opaque (RFC 6265 §4.1.1): nothing is percent-decoded and surrounding
/// double quotes are kept, as user agents keep them.
package enum CookieParsing {
    /// The cookies of every `Cookie` field value (`a=1; b=2`, RFC 6265 §5.4). Pieces are split
    /// on `;` and trimmed, so a sloppy `a=1;b=2` reads the same; a piece without `=` is skipped
    /// (§5.2 step 2 ignores such a set-cookie-string too).
    static func requestCookies(_ fieldValues: [String]) -> [String: [String]] {
        var cookies: [String: [String]] = [:]
        for field in fieldValues {
            for piece in field.split(separator: ";") {
                guard let pair = nameValue(piece) else { continue }
                cookies[pair.name, default: []].append(pair.value)
            }
        }
        return cookies
    }

    /// One Set-Cookie field value: the name and value before the first `;` (RFC 6265 §5.2),
    /// and whether the attributes make it a deletion rather than a new cookie.
    package struct SetCookie: Equatable {
        package var name: String
        package var value: String
        /// `Max-Age` ≤ 0, an empty value, or an `Expires` year before 2000: the common ways
        /// servers clear a cookie on logout. (There is no clock here, so other past `Expires`
        /// dates are not recognised.)
        package var isDeletion: Bool
    }

    package static func setCookie(_ fieldValue: String) -> SetCookie? {
        var pieces = fieldValue.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let first = pieces.popFirst(), let pair = nameValue(first) else { return nil }
        var deletion = pair.value.isEmpty
        for attribute in pieces {
            let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = ASCIICase.lowered(trimmed(parts[0]))
            let value = parts.count > 1 ? trimmed(parts[1]) : ""
            switch key {
            case "max-age":
                // RFC 6265 §5.2.2: a non-positive delta expires the cookie at once.
                if let seconds = Int(value), seconds <= 0 { deletion = true }
            case "expires":
                if let year = expiresYear(value), year < 2000 { deletion = true }
            default:
                break
            }
        }
        return SetCookie(name: pair.name, value: pair.value, isDeletion: deletion)
    }

    private static func nameValue(_ piece: Substring) -> (name: String, value: String)? {
        guard let equals = piece.firstIndex(of: "=") else { return nil }
        let name = trimmed(piece[..<equals])
        guard !name.isEmpty else { return nil }
        return (name, trimmed(piece[piece.index(after: equals)...]))
    }

    /// The year of a cookie date, the way RFC 6265 §5.1.1 finds it: the first run of 2 to 4
    /// digits not followed by `:` (a time) that is not the day of month; 2-digit years are
    /// 1970...2069.
    private static func expiresYear(_ date: String) -> Int? {
        let tokens = date.split { !$0.isASCII || !($0.isLetter || $0.isNumber || $0 == ":") }
        var sawDay = false
        for token in tokens where token.allSatisfy(\.isNumber) {
            guard let number = Int(token) else { continue }
            if token.count <= 2, !sawDay {
                sawDay = true
                continue
            }
            if token.count == 4 { return number }
            if token.count == 2 { return number < 70 ? 2000 + number : 1900 + number }
        }
        return nil
    }

    static func trimmed(_ text: Substring) -> String {
        var slice = text
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
