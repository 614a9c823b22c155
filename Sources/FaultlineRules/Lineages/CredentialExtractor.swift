import FaultlineCore

/// Finds credentials where the auth profile says they travel and fingerprints them at once, so
/// raw values live only inside these functions.
///
/// - `header` with a scheme (`Bearer`): only field values starting with that scheme
///   (case-insensitive, RFC 9110 §11.1) followed by whitespace; the credential is the rest,
///   trimmed. Without a scheme: the whole trimmed value.
/// - `cookie`: by name from the request's Cookie fields; `setCookie`: by name from Set-Cookie
///   fields, skipping deletions (`Max-Age=0`, empty value, an `Expires` before 2000).
/// - `form`: an `application/x-www-form-urlencoded` body field; `json`: a string (or a
///   number's text) at an RFC 6901 pointer in a JSON body.
/// Empty values are not credentials. Duplicates (two identical Cookie fields) count once.
struct CredentialExtractor: Sendable {
    /// Where a revocation's token travels (RFC 7009 §2.1), as `Credential.place` says it.
    static let revocationPlace = describe(.form("token"))

    let requestLocations: [CredentialLocation]
    let responseLocations: [CredentialLocation]
    let fingerprint: @Sendable (_ secret: String, _ kind: String) -> String

    /// Credentials a request with `role` presents at the locations that apply to that role.
    /// `setCookie` locations do not apply to requests.
    func presented(in request: FlowView, role: String) -> [Credential] {
        var body = BodyReader(request.body)
        return collect(requestLocations.filter { $0.applies(toRole: role) }) { place in
            switch place {
            case .header(let name, let scheme):
                return Self.headerCredentials(request.headerValues(name), scheme: scheme)
            case .cookie(let name): return CookieParsing.requestCookies(request.headerValues("cookie"))[name] ?? []
            case .form(let name): return body.form(name)
            case .json(let pointer): return body.json(pointer)
            case .setCookie: return []
            }
        }
    }

    /// The token a revocation request names (RFC 7009 §2.1: the `token` form field; the first
    /// if the field repeats), fingerprinted, and the kind its `token_type_hint` names: nil
    /// without a hint, or with a hint other than `access_token` / `refresh_token` (§2.1: the
    /// server then searches every token type, and so does the tracker). Nil when the body has no
    /// token.
    func revocationToken(in request: FlowView) -> (fingerprint: String, hint: CredentialKind?)? {
        var body = BodyReader(request.body)
        guard let token = body.form("token").first(where: { !$0.isEmpty }) else { return nil }
        let hint: CredentialKind?
        switch body.form("token_type_hint").first {
        case "access_token": hint = .access
        case "refresh_token": hint = .refresh
        default: hint = nil
        }
        return (fingerprint(token, (hint ?? LineageTracker.unknownRevocationKind).rawValue), hint)
    }

    /// Credentials a response issues. `cookie` locations do not apply to responses.
    func issued(headers: [(name: String, value: String)], body: [UInt8]?) -> [Credential] {
        var reader = BodyReader(body)
        return collect(responseLocations) { place in
            switch place {
            case .header(let name, let scheme):
                return Self.headerCredentials(FlowView.values(named: name, in: headers), scheme: scheme)
            case .setCookie(let name):
                return FlowView.values(named: "set-cookie", in: headers).compactMap { field in
                    guard let cookie = CookieParsing.setCookie(field), cookie.name == name, !cookie.isDeletion
                    else { return nil }
                    return cookie.value
                }
            case .form(let name): return reader.form(name)
            case .json(let pointer): return reader.json(pointer)
            case .cookie: return []
            }
        }
    }

    private func collect(
        _ locations: [CredentialLocation], _ rawValues: (CredentialLocation.Place) -> [String]
    ) -> [Credential] {
        var result: [Credential] = []
        for location in locations {
            for raw in rawValues(location.place) where !raw.isEmpty {
                let credential = Credential(
                    kind: location.kind, place: Self.describe(location.place),
                    fingerprint: fingerprint(raw, location.kind.rawValue))
                if !result.contains(credential) { result.append(credential) }
            }
        }
        return result
    }

    private static func headerCredentials(_ values: [String], scheme: String?) -> [String] {
        values.compactMap { value in
            let trimmed = CookieParsing.trimmed(value[...])
            guard let scheme else { return trimmed }
            // RFC 9110 §11.4: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
            let rest = trimmed.dropFirst(scheme.count)
            guard ASCIICase.hasPrefix(trimmed[...], scheme), let gap = rest.first, gap == " " || gap == "\t"
            else { return nil }
            return CookieParsing.trimmed(rest)
        }
    }

    static func describe(_ place: CredentialLocation.Place) -> String {
        switch place {
        case .header(let name, _): return "header \(name)"
        case .cookie(let name): return "cookie \(name)"
        case .setCookie(let name): return "set-cookie \(name)"
        case .form(let name): return "form \(name)"
        case .json(let pointer): return "json \(pointer)"
        }
    }
}

/// A body parsed as a form or as JSON at most once, on first need.
private struct BodyReader {
    let body: [UInt8]?
    private var fields: [String: [String]]?
    private var document: JSONValue??

    init(_ body: [UInt8]?) {
        self.body = body
    }

    mutating func form(_ name: String) -> [String] {
        if fields == nil { fields = body.map(FormParsing.formFields) ?? [:] }
        return fields?[name] ?? []
    }

    mutating func json(_ pointer: String) -> [String] {
        if document == nil { document = .some(body.flatMap(JSONValue.parse)) }
        guard let root = document ?? nil, let text = root.value(at: pointer)?.credentialText else { return [] }
        return [text]
    }
}
