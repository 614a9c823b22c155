import FaultlineTrace

/// Finds values in a trace event that should have been written as fingerprints and were not.
///
/// It knows what the trace writer does (FaultlineTrace's `RedactionPolicy`): `Authorization`
/// keeps its scheme and fingerprints the rest (RFC 9110 §11.4), `Cookie` writes `name=fp:…` per
/// pair (RFC 6265 §4.2.1), `Set-Cookie` fingerprints its pair and unknown attributes (§4.1.1),
/// URLs fingerprint userinfo passwords (RFC 3986 §3.2.1) and the values of secret query and
/// fragment parameters, and credential lists are `kind=fp:…`. Headers the proxy was told to
/// redact on its command line cannot be known here and are not checked. Every finding names the
/// field, never the value.
enum SecretScanner {
    /// Where in the event the suspected secret is, for a ``TraceProblem`` message.
    static func findings(in event: TraceEvent) -> [String] {
        var found: [String] = []
        if let headers = event.headers("headers") {
            for header in headers {
                if let problem = headerProblem(name: header.name, value: header.value) { found.append(problem) }
            }
        }
        for key in ["url", "path"] {
            if let target = event.string(key), let problem = targetProblem(target) { found.append("'\(key)' \(problem)") }
        }
        for key in ["credentials", "issued", "presented", "replaced"] {
            guard let list = event.strings(key) else { continue }
            for entry in list {
                let value = entry.firstIndex(of: "=").map { entry[entry.index(after: $0)...] } ?? Substring(entry)
                if !isFingerprint(value) { found.append("an entry of '\(key)' is not kind=fp:…") }
            }
        }
        return found
    }

    /// `fp:` and 16 lowercase hex digits.
    static func isFingerprint(_ text: some StringProtocol) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 19, utf8.starts(with: "fp:".utf8) else { return false }
        return utf8.dropFirst(3).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static let urlHeaders: Set<String> = ["location", "content-location", "referer"]
    private static let knownCookieAttributes: Set<String> = [
        "path", "domain", "expires", "max-age", "httponly", "secure", "samesite", "partitioned", "priority",
    ]

    static func headerProblem(name: String, value: String) -> String? {
        let lower = name.lowercased()
        switch lower {
        case "authorization", "proxy-authorization":
            return authorizationIsRedacted(value) ? nil : "the \(name) header is not 'Scheme fp:…'"
        case "cookie":
            return cookieIsRedacted(value) ? nil : "a cookie in the Cookie header is not name=fp:…"
        case "set-cookie":
            return setCookieIsRedacted(value) ? nil : "a Set-Cookie header carries a value that is not a fingerprint"
        default:
            if urlHeaders.contains(lower), let problem = targetProblem(value) { return "the \(name) header \(problem)" }
            return nil
        }
    }

    static func authorizationIsRedacted(_ value: String) -> Bool {
        let trimmed = value.trimmingSpaces
        guard !trimmed.isEmpty else { return true }
        guard let space = trimmed.firstIndex(of: " ") else { return isFingerprint(trimmed) }
        let scheme = trimmed[..<space]
        let rest = trimmed[trimmed.index(after: space)...].trimmingSpaces
        return scheme.utf8.allSatisfy(ContractFileDecoder.isTokenByte) && isFingerprint(rest)
    }

    static func cookieIsRedacted(_ value: String) -> Bool {
        value.split(separator: ";").allSatisfy { piece in
            let pair = piece.trimmingSpaces
            return pair.isEmpty || pairIsRedacted(pair)
        }
    }

    static func setCookieIsRedacted(_ value: String) -> Bool {
        let pieces = value.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = pieces.first else { return true }
        let pair = first.trimmingSpaces
        if !pair.isEmpty && !pairIsRedacted(pair) { return false }
        for piece in pieces.dropFirst() {
            let attribute = piece.trimmingSpaces
            guard !attribute.isEmpty else { continue }
            let equals = attribute.firstIndex(of: "=")
            let name = attribute[..<(equals ?? attribute.endIndex)].trimmingSpaces.lowercased()
            guard let equals else {
                if !knownCookieAttributes.contains(name) && !isFingerprint(attribute) { return false }
                continue
            }
            let attributeValue = attribute[attribute.index(after: equals)...].trimmingSpaces
            if attributeValue.isEmpty || isFingerprint(attributeValue) { continue }
            if !knownCookieAttributes.contains(name) || attributeValue.contains("=") { return false }
        }
        return true
    }

    /// `name=fp:…`, `name=` or a bare `fp:…`.
    private static func pairIsRedacted(_ pair: Substring) -> Bool {
        guard let equals = pair.firstIndex(of: "=") else { return isFingerprint(pair) }
        let value = pair[pair.index(after: equals)...].trimmingSpaces
        return value.isEmpty || isFingerprint(value)
    }

    /// A reason when a URL or target shows a password or a secret parameter in clear.
    static func targetProblem(_ target: String) -> String? {
        var rest = Substring(target)
        if let authorityStart = ClientRequest.authorityStart(of: rest) {
            let authorityEnd = rest[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[authorityStart..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                let userinfo = authority[..<at]
                if let colon = userinfo.firstIndex(of: ":") {
                    let password = userinfo[userinfo.index(after: colon)...]
                    if !password.isEmpty && !isFingerprint(password) { return "shows a password in clear" }
                } else if !userinfo.isEmpty && !isFingerprint(userinfo) {
                    return "shows userinfo in clear"
                }
            }
            rest = rest[authorityEnd...]
        }
        guard let start = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return nil }
        for parameter in rest[rest.index(after: start)...].split(whereSeparator: { $0 == "&" || $0 == "?" || $0 == "#" }) {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = (parameter[..<equals].removingPercentEncodingLossy).lowercased()
            guard RedactionPolicy.defaultSecretQueryParameters.contains(name) else { continue }
            let value = parameter[parameter.index(after: equals)...]
            if !value.isEmpty && !isFingerprint(value) { return "shows the parameter '\(name)' in clear" }
        }
        return nil
    }
}

extension Substring {
    /// Percent-decoded for comparing names (`access%5Ftoken` is `access_token`); bad escapes stay.
    fileprivate var removingPercentEncodingLossy: String {
        guard contains("%") else { return String(self) }
        var bytes: [UInt8] = []
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
