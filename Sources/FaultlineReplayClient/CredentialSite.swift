package import FaultlineCore
public import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// A place where a response issues a credential, and the value it had there: a cookie's value
/// in `Set-Cookie` by cookie name (RFC 6265 §4.1), or a JSON string by pointer (RFC 6901), such
/// as `/access_token` of an OAuth token response (RFC 6749 §5.1).
///
/// The recorded answer's sites say which recorded values a live answer replaces: the live value
/// at the same place is the one to send from then on.
public struct CredentialSite: Sendable, Hashable {
    public enum Place: Sendable, Hashable, CustomStringConvertible {
        case cookie(name: String)
        case json(pointer: String)

        public var description: String {
            switch self {
            case .cookie(let name): "Set-Cookie \(name)"
            case .json(let pointer): "JSON \(pointer)"
            }
        }
    }

    /// JSON members whose string values are credentials even when the capture did not name them
    /// (OAuth 2.0, RFC 6749 §5.1 and RFC 7009 §2.1; OpenID Connect's `id_token`).
    public static let credentialMemberNames: Set<String> = ["access_token", "refresh_token", "id_token", "token"]

    public var place: Place
    public var value: String

    public init(_ place: Place, value: String) {
        self.place = place
        self.value = value
    }

    /// The credentials a recorded response issued: every Set-Cookie value and every JSON string
    /// that is a pseudonym or a member named in `credentialMemberNames`, when `map` would learn it
    /// (`CredentialMap.isLearnable`: no empty value of a logout's cookie, no short raw text).
    public static func sites(headers: HTTPHeaders, body: [UInt8], learnableBy map: CredentialMap) -> [CredentialSite] {
        var sites: [CredentialSite] = []
        for field in headers.values(name: "set-cookie") {
            guard let cookie = CookieParsing.setCookie(field), map.isLearnable(cookie.value) else { continue }
            sites.append(CredentialSite(.cookie(name: cookie.name), value: cookie.value))
        }
        if let document = JSONValue.parse(body) {
            collect(document, pointer: "", memberName: nil, into: &sites) { text, member in
                guard map.isLearnable(text) else { return false }
                return (map.findsPseudonyms && Pseudonym.isPseudonym(text))
                    || member.map(credentialMemberNames.contains) == true
            }
        }
        return sites
    }

    /// The value a response has at `place`, if any: the last Set-Cookie for the cookie (a
    /// response that sets it twice means the last one, RFC 6265 §5.3 step 11), or the JSON string.
    package static func value(at place: Place, headers: HTTPHeaders, json: JSONValue?) -> String? {
        switch place {
        case .cookie(let name):
            return headers.values(name: "set-cookie").compactMap(CookieParsing.setCookie).last { $0.name == name }?
                .value
        case .json(let pointer):
            guard case .string(let text)? = json?.value(at: pointer) else { return nil }
            return text
        }
    }

    private static func collect(
        _ value: JSONValue, pointer: String, memberName: String?, into sites: inout [CredentialSite],
        isCredential: (_ text: String, _ memberName: String?) -> Bool
    ) {
        switch value {
        case .string(let text):
            if isCredential(text, memberName) { sites.append(CredentialSite(.json(pointer: pointer), value: text)) }
        case .object(let members):
            // In key order, as the sites were listed when objects were dictionaries.
            for member in members.sorted(by: { $0.key < $1.key }) {
                let key = member.key
                collect(
                    member.value, pointer: pointer + "/" + escapedToken(key), memberName: key, into: &sites,
                    isCredential: isCredential)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                collect(
                    element, pointer: pointer + "/\(index)", memberName: nil, into: &sites, isCredential: isCredential)
            }
        case .null, .bool, .number:
            return
        }
    }

    /// RFC 6901 §3: `~` is `~0`, `/` is `~1`.
    static func escapedToken(_ key: String) -> String {
        guard key.contains(where: { $0 == "~" || $0 == "/" }) else { return key }
        var escaped = ""
        for character in key {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
