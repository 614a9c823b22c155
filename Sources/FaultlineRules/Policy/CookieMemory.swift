import Synchronization

/// The last Set-Cookie field value seen from any upstream, per cookie name, so a rule can replay
/// an old session's cookie after logout. Values live only in memory; the trace never sees them.
public final class CookieMemory: Sendable {
    private let values = Mutex<[String: String]>([:])

    /// Remembers every Set-Cookie of a response that sets a cookie; one that deletes it (empty
    /// value, `Max-Age` of zero or less, RFC 6265 §5.2.2) is not a value worth replaying.
    public func remember(setCookieValues: [String]) {
        guard !setCookieValues.isEmpty else { return }
        values.withLock { values in
            for value in setCookieValues where !Self.isDeletion(value) {
                guard let name = Self.cookieName(value) else { continue }
                values[name] = value
            }
        }
    }

    /// True for a Set-Cookie that removes its cookie rather than setting one.
    static func isDeletion(_ setCookie: String) -> Bool {
        let parts = setCookie.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return true }
        if pair[pair.index(after: equals)...].trimmed(of: " \t").isEmpty { return true }
        for attribute in parts.dropFirst() {
            let trimmed = attribute.trimmed(of: " \t")
            guard trimmed.lowercased().hasPrefix("max-age=") else { continue }
            if let seconds = Int(trimmed.dropFirst("max-age=".count)), seconds <= 0 { return true }
        }
        return false
    }

    /// The last Set-Cookie value for `name`.
    public func lastSetCookie(named name: String) -> String? {
        values.withLock { $0[name] }
    }

    /// The cookie name of a Set-Cookie value: the text before the first `=` (RFC 6265 §5.2).
    public static func cookieName(_ setCookie: String) -> String? {
        guard let equals = setCookie.firstIndex(of: "=") else { return nil }
        let name = setCookie[..<equals].trimmed(of: " \t")
        return name.isEmpty ? nil : name
    }
}

extension StringProtocol {
    /// Drops leading and trailing characters of `set` (a small stand-in for Foundation's trimming).
    func trimmed(of set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
