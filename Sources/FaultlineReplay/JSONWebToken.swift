import FaultlineCore
import Foundation

/// A JWT in JWS compact serialization (RFC 7519 §3, RFC 7515 §7.1: `header.claims.signature`,
/// each part base64url without padding), read far enough to move its time claims.
///
/// A JWE (five parts) and any text that is not three base64url parts whose first is a JSON object
/// naming an `alg` (RFC 7515 §4.1.1) and whose second is a JSON object is no JWT here.
struct JSONWebToken {
    /// The NumericDate claims (RFC 7519 §4.1.4–§4.1.6, OpenID Connect Core §2 `auth_time`) that
    /// move with the clock.
    static let timeClaims = ["exp", "nbf", "iat", "auth_time"]

    /// The header part as recorded.
    let header: Substring
    /// The claims part as recorded.
    let claimsPart: Substring
    /// The signature part as recorded.
    let signature: Substring
    let claims: [JSONMember]

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count >= 4, parts[1].count >= 4,
            parts.allSatisfy({ $0.utf8.allSatisfy(Self.isBase64URL) }),
            let headerJSON = Self.decode(parts[0]).flatMap(JSONValue.parse), headerJSON["alg"]?.stringValue != nil,
            let claims = Self.decode(parts[1]).flatMap(JSONValue.parse)?.members
        else { return nil }
        header = parts[0]
        claimsPart = parts[1]
        signature = parts[2]
        self.claims = claims
    }

    /// `header.claims.` with every integer time claim moved by `offset` seconds (the claims part
    /// re-encoded, members in their order), and the names of the claims moved. With nothing to
    /// move the recorded parts come back as they were. The signature is the caller's: a moved
    /// token's recorded signature no longer verifies.
    func signingInput(movedBy offset: Int64) -> (text: String, moved: [String]) {
        var moved: [String] = []
        let members = claims.map { member -> JSONMember in
            guard offset != 0, Self.timeClaims.contains(member.key), let value = member.value.intValue else {
                return member
            }
            let (sum, overflow) = value.addingReportingOverflow(offset)
            guard !overflow else { return member }
            moved.append(member.key)
            return JSONMember(key: member.key, value: .int(sum))
        }
        guard !moved.isEmpty else { return ("\(header).\(claimsPart).", []) }
        let encoded = Base64.encoded(JSONValue.object(members).jsonBytes(), variant: .urlUnpadded)
        return ("\(header).\(encoded).", moved)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// A base64url part's bytes (RFC 4648 §5; JWS leaves the padding off, RFC 7515 §2).
    static func decode(_ part: Substring) -> [UInt8]? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).map { Array($0) }
    }
}
