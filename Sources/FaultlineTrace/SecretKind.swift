/// Where a secret was found, which names its kind in a capture's pseudonym (`flp.access.L1.2`).
///
/// The trace's fingerprints ignore it; only `PseudonymRegistry` turns it into text, and only
/// for a secret it has not named before, so the hot path never builds a String from it.
enum SecretKind {
    /// The credentials of an `Authorization` field, named by its auth-scheme (`Bearer`).
    case authorization(scheme: UnsafeBufferPointer<UInt8>)
    /// A cookie's value, by cookie name (Cookie or Set-Cookie).
    case cookie(name: UnsafeBufferPointer<UInt8>)
    /// A query, fragment, form or JSON body field, by field name.
    case field(name: UnsafeBufferPointer<UInt8>)
    /// The whole value of a secret header, by header name.
    case header(name: UnsafeBufferPointer<UInt8>)
    /// A fixed kind (`password` for a URL's userinfo, a credential kind the tracker names).
    case named(String)

    /// The kind as a pseudonym writes it: lowercase letters, digits and `-`, at most 32 of them;
    /// OAuth's parameter names shortened to what they hold (`access_token` → `access`, RFC 6749
    /// §5.1), a Bearer credential called `access` (RFC 6750 §2.1), cookies `cookie-NAME`.
    var text: String {
        switch self {
        case .authorization(let scheme):
            let name = Self.sanitized(scheme)
            return name == "bearer" ? "access" : name
        case .cookie(let name): return "cookie-" + Self.sanitized(name)
        case .field(let name): return Self.shortened(Self.sanitized(name))
        case .header(let name): return Self.sanitized(name)
        case .named(let kind): return Self.shortened(withUTF8(of: kind) { Self.sanitized($0) })
        }
    }

    private static func shortened(_ kind: String) -> String {
        switch kind {
        case "access-token": return "access"
        case "refresh-token": return "refresh"
        case "id-token": return "id"
        default: return kind
        }
    }

    private static func sanitized(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes where text.count < 32 {
            let lower = ASCII.lowercased(byte)
            switch lower {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): text.append(lower)
            default: if text.last != UInt8(ascii: "-") { text.append(UInt8(ascii: "-")) }
            }
        }
        while text.last == UInt8(ascii: "-") { text.removeLast() }
        return text.isEmpty ? "secret" : String(decoding: text, as: UTF8.self)
    }
}
