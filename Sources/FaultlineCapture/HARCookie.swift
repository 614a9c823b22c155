import FaultlineCore
import FaultlineHTTP1

/// A HAR `cookie` object: a request's cookies come from its `Cookie` fields, a response's from
/// its `Set-Cookie` fields, their values exactly as the capture wrote them (pseudonyms stay).
struct HARCookie: Equatable {
    var name: String
    var value: String
    var path: String?
    var domain: String?
    /// HAR wants ISO 8601; an `Expires` that is no HTTP date is left out rather than guessed.
    var expires: String?
    /// Set only for a response's cookies: a request's `Cookie` field carries no attributes.
    var httpOnly: Bool?
    var secure: Bool?

    /// The cookies of every `Cookie` field: `name=value` pairs separated by `;` (RFC 6265
    /// §4.2.1; HTTP/2 may split them over several fields, RFC 9113 §8.2.3). A piece without `=`
    /// is no cookie and is skipped.
    static func requestCookies(_ headers: HTTPHeaders) -> [HARCookie] {
        headers.values(name: "cookie").flatMap { field in
            field.split(separator: ";").compactMap { nameValue($0) }
        }
    }

    /// One cookie per `Set-Cookie` field (RFC 6265 §4.1.1): its first pair, then the attributes
    /// HAR has a place for (§5.2: names compare case-insensitively, unknown ones are ignored). A
    /// field whose first piece has no `=` sets nothing (§5.2 step 2) and is skipped.
    static func responseCookies(_ headers: HTTPHeaders) -> [HARCookie] {
        headers.values(name: "set-cookie").compactMap { field in
            let pieces = field.split(separator: ";", omittingEmptySubsequences: false)
            guard let first = pieces.first, var cookie = nameValue(first) else { return nil }
            cookie.httpOnly = false
            cookie.secure = false
            for attribute in pieces.dropFirst() {
                let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count > 1 ? String(parts[1].trimmingOWS) : ""
                switch parts[0].trimmingOWS.lowercased() {
                case "path": cookie.path = value
                case "domain": cookie.domain = value
                case "expires": cookie.expires = WallTime(httpDate: value)?.rfc3339
                case "httponly": cookie.httpOnly = true
                case "secure": cookie.secure = true
                default: continue
                }
            }
            return cookie
        }
    }

    private static func nameValue(_ piece: Substring) -> HARCookie? {
        guard let equals = piece.firstIndex(of: "=") else { return nil }
        let name = String(piece[..<equals].trimmingOWS)
        guard !name.isEmpty else { return nil }
        return HARCookie(name: name, value: String(piece[piece.index(after: equals)...].trimmingOWS))
    }

    /// The HAR object; optional members only when known.
    var json: JSONValue {
        .fields([
            ("name", .string(name)), ("value", .string(value)), ("path", path.map(JSONValue.string)),
            ("domain", domain.map(JSONValue.string)), ("expires", expires.map(JSONValue.string)),
            ("httpOnly", httpOnly.map(JSONValue.bool)), ("secure", secure.map(JSONValue.bool)),
        ])
    }
}
