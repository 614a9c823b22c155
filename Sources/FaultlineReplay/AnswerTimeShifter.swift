import FaultlineCapture
import FaultlineCore
import FaultlineHTTP1
import Foundation

/// Moves the times in one recorded answer by `offset` seconds (`ReplayClock`), so that a capture
/// replayed later tells times as late as the replay is: what a client checks (a cookie's or a
/// token's expiry, a cache's freshness) holds as it did when recorded. Sans-I/O: a recorded head
/// and body in, moved ones out, and the list of what moved for the trace.
///
/// What moves (RFC sections where each is defined):
/// - `Date`, `Expires`, `Last-Modified` (RFC 9110 §6.6.1, RFC 9111 §5.3, RFC 9110 §8.8.2), and
///   `Retry-After` when it is a date rather than seconds (RFC 9110 §10.2.3);
/// - a `Set-Cookie`'s `Expires` attribute (RFC 6265 §5.2.1); `Max-Age` is relative and stays;
/// - in a JSON body, the epoch-seconds or RFC 3339 members named in `timeFields` of an object
///   that also holds a credential member (`expires_at` beside `access_token`); relative ones
///   (`expires_in`) stay;
/// - the time claims of a JWT (`exp`, `nbf`, `iat`, `auth_time`) in a JSON string or a cookie
///   value, its claims re-encoded. A JWT the replay re-issues (one of `issued`) is not rewritten
///   in place: its moved `header.claims.` goes to `issuedJWTs`, on which the mint builds the
///   fresh token.
///
/// An HTTP date that does not parse (`Expires: 0`) stays as recorded: RFC 9111 §5.3 already reads
/// it as "expired", at any clock.
struct AnswerTimeShifter {
    /// JSON members holding an instant beside a credential.
    static let timeFields: Set<String> = [
        "expires_at", "issued_at", "not_before", "refresh_token_expires_at", "refresh_expires_at", "exp", "iat",
        "nbf",
    ]
    static let dateHeaders = ["date", "expires", "last-modified"]

    let offset: Int64
    let issued: Set<String>
    /// Lowercased JSON member names that hold credentials (the redaction policy's body fields).
    let credentialFields: Set<String>
    /// What moved, in the order met: `Date`, `Set-Cookie sid Expires`, `body /expires_at`,
    /// `body /id_token jwt exp,iat`. Names and places only, never a value.
    private(set) var moved: [String] = []
    /// A recorded JWT the replay re-issues → its `header.claims.` with the times moved.
    private(set) var issuedJWTs: [String: String] = [:]

    init(offset: Int64, issued: Set<String> = [], credentialFields: Set<String>) {
        self.offset = offset
        self.issued = issued
        self.credentialFields = credentialFields
    }

    /// `headers` with their dates moved.
    mutating func shift(_ headers: HTTPHeaders) -> HTTPHeaders {
        var out = HTTPHeaders()
        for field in headers {
            let name = field.name.lowercased()
            var value = field.value
            if Self.dateHeaders.contains(name) {
                value = shiftedDate(value, label: field.name) ?? value
            } else if name == "retry-after", !value.isEmpty, !value.utf8.allSatisfy({ (48...57).contains($0) }) {
                value = shiftedDate(value, label: field.name) ?? value
            } else if name == "set-cookie" {
                value = shiftedCookie(value)
            }
            out.add(name: field.name, value: value)
        }
        return out
    }

    /// `body` with its JSON times moved; the recorded bytes when it is no JSON or nothing moved
    /// (a moved document is written compactly, members in their order).
    mutating func shift(body: [UInt8], contentType: String?) -> [UInt8] {
        guard case .json(let document) = StructuredBody(body, contentType: contentType) else { return body }
        var changed = false
        let shifted = walk(document, pointer: "", changed: &changed)
        return changed ? shifted.jsonBytes() : body
    }

    /// Records the moved `header.claims.` of an issued JWT the walk did not meet (one in a header
    /// the shifter does not read), named by `place`.
    mutating func noteIssued(_ value: String, place: String) {
        guard issuedJWTs[value] == nil, let token = JSONWebToken(value) else { return }
        let (input, claims) = token.signingInput(movedBy: offset)
        issuedJWTs[value] = input
        if !claims.isEmpty { moved.append("\(place) jwt \(claims.joined(separator: ","))") }
    }

    /// A recorded JWT's `header.claims.` with its time claims moved by `offset`; nil for a value
    /// that is no JWT.
    static func movedSigningInput(of value: String, by offset: Int64) -> String? {
        JSONWebToken(value)?.signingInput(movedBy: offset).text
    }

    // MARK: Fields

    private mutating func shiftedDate(_ value: String, label: String) -> String? {
        guard offset != 0, let seconds = HTTPDate.seconds(parsing: value),
            let text = HTTPDate.format(seconds: seconds + offset)
        else { return nil }
        moved.append(label)
        return text
    }

    /// `name=value; Expires=DATE; …` with the date moved (RFC 6265 §4.1.1); the other attributes,
    /// their order and spelling stay. A JWT cookie value moves as in a body.
    private mutating func shiftedCookie(_ value: String) -> String {
        var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return value }
        let cookieName = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let cookieValue = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if let token = JSONWebToken(cookieValue) {
            if issued.contains(cookieValue) {
                noteIssued(cookieValue, place: "Set-Cookie \(cookieName)")
            } else {
                let (input, claims) = token.signingInput(movedBy: offset)
                if !claims.isEmpty {
                    parts[0] = pair.replacingOccurrences(of: cookieValue, with: input + token.signature)
                    moved.append("Set-Cookie \(cookieName) jwt \(claims.joined(separator: ","))")
                }
            }
        }
        for index in parts.indices.dropFirst() {
            let attribute = parts[index]
            guard let equals = attribute.firstIndex(of: "="),
                attribute[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "expires",
                let date = shiftedDate(
                    String(attribute[attribute.index(after: equals)...]), label: "Set-Cookie \(cookieName) Expires")
            else { continue }
            parts[index] = String(attribute[...equals]) + date
        }
        return parts.joined(separator: ";")
    }

    private mutating func walk(_ value: JSONValue, pointer: String, changed: inout Bool) -> JSONValue {
        switch value {
        case .object(let members):
            let beside = members.contains { credentialFields.contains($0.key.lowercased()) }
            return .object(
                members.map { member in
                    let path = pointer + "/" + Self.escaped(member.key)
                    if beside, Self.timeFields.contains(member.key.lowercased()),
                        let moved = shiftedInstant(member.value, label: "body \(path)")
                    {
                        changed = true
                        return JSONMember(key: member.key, value: moved)
                    }
                    return JSONMember(
                        key: member.key, value: walk(member.value, pointer: path, changed: &changed))
                })
        case .array(let elements):
            return .array(
                elements.enumerated().map { index, element in
                    walk(element, pointer: "\(pointer)/\(index)", changed: &changed)
                })
        case .string(let text):
            guard let token = JSONWebToken(text) else { return value }
            if issued.contains(text) {
                noteIssued(text, place: "body \(pointer)")
                return value
            }
            let (input, claims) = token.signingInput(movedBy: offset)
            guard !claims.isEmpty else { return value }
            moved.append("body \(pointer) jwt \(claims.joined(separator: ","))")
            changed = true
            return .string(input + token.signature)
        case .null, .bool, .number:
            return value
        }
    }

    /// An epoch-seconds integer or an RFC 3339 string moved by the offset; nil for anything else
    /// or with nothing to move. An RFC 3339 time comes back in UTC (`Z`) with its fraction as
    /// recorded: whole seconds move, the fraction does not.
    private mutating func shiftedInstant(_ value: JSONValue, label: String) -> JSONValue? {
        guard offset != 0 else { return nil }
        if let seconds = value.intValue {
            let (sum, overflow) = seconds.addingReportingOverflow(offset)
            guard !overflow else { return nil }
            moved.append(label)
            return .int(sum)
        }
        guard let text = value.stringValue, let nanoseconds = RFC3339Date.nanoseconds(parsing: text) else {
            return nil
        }
        let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        guard let whole = RFC3339Date.format(seconds: seconds + offset) else { return nil }
        var fraction = ""
        if let dot = text.firstIndex(of: ".") {
            fraction = String(text[dot...].prefix { $0 == "." || ("0"..."9").contains($0) })
        }
        moved.append(label)
        return .string(String(whole.dropLast()) + fraction + "Z")
    }

    /// A JSON pointer reference token (RFC 6901 §3: `~` as `~0`, `/` as `~1`).
    private static func escaped(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
