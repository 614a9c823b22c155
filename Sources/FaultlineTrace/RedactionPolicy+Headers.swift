import FaultlineCore

/// Writing header values with their secrets replaced by fingerprints.
///
/// Each scanner keeps what a reader of the trace needs (auth-scheme, cookie names, cookie
/// attributes) and fingerprints everything that could be a credential. Odd inputs (empty
/// values, pieces without `=`, stray whitespace, repeated names) are fingerprinted rather than
/// copied whenever the scanner cannot tell what they are.
extension RedactionPolicy {
    /// Appends the JSON string (with quotes) for the value of header `name`.
    func appendHeaderValue(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
        secrets: SecretWriter, to output: inout JSONOutput
    ) {
        output.appendByte(UInt8(ascii: "\""))
        switch treatment(ofHeader: name) {
        case nil: output.appendEscaped(value)
        case .authorization: Self.appendAuthorization(value, secrets, &output)
        case .cookie: Self.appendCookie(value, secrets, &output)
        case .setCookie: Self.appendSetCookie(value, secrets, &output)
        case .opaque: Self.appendOpaque(value, name: name, secrets, &output)
        case .url: appendTargetContents(value, secrets: secrets, to: &output)
        }
        output.appendByte(UInt8(ascii: "\""))
    }

    /// `credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]` (RFC 9110 §11.4): the scheme
    /// stays, everything after it becomes one fingerprint. A first word that is not a token, or a
    /// value of one word, may be a bare credential, so it is fingerprinted whole.
    static func appendAuthorization(
        _ value: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        let trimmed = value.trimmingWhitespace()
        guard !trimmed.isEmpty else { return }
        var schemeEnd = 0
        while schemeEnd < trimmed.count && !ASCII.isWhitespace(trimmed[schemeEnd]) { schemeEnd += 1 }
        let scheme = trimmed.slice(0, schemeEnd)
        guard schemeEnd < trimmed.count, scheme.allSatisfy(HTTPToken.isTokenByte) else {
            secrets.append(trimmed, kind: .named("authorization"), to: &output)
            return
        }
        output.appendEscaped(scheme)
        output.appendByte(UInt8(ascii: " "))
        secrets.append(
            trimmed.slice(schemeEnd, trimmed.count).trimmingWhitespace(), kind: .authorization(scheme: scheme),
            to: &output)
    }

    /// `cookie-string = cookie-pair *( ";" SP cookie-pair )` (RFC 6265 §4.2.1): each pair becomes
    /// `name=fp:...`, pairs joined by `"; "`; empty pieces are dropped.
    static func appendCookie(
        _ value: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        var first = true
        forEachPiece(of: value, separatedBy: UInt8(ascii: ";")) { piece in
            let pair = piece.trimmingWhitespace()
            guard !pair.isEmpty else { return }
            if !first { output.appendRaw("; ") }
            first = false
            appendCookiePair(pair, secrets, &output)
        }
    }

    /// `set-cookie-string = cookie-pair *( ";" SP cookie-av )` (RFC 6265 §4.1.1): the pair becomes
    /// `name=fp:...`; the attributes a reader needs stay; unknown attributes keep their name only.
    static func appendSetCookie(
        _ value: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        var isPair = true
        forEachPiece(of: value, separatedBy: UInt8(ascii: ";")) { piece in
            let trimmed = piece.trimmingWhitespace()
            if isPair {
                isPair = false
                if !trimmed.isEmpty { appendCookiePair(trimmed, secrets, &output) }
                return
            }
            guard !trimmed.isEmpty else { return }
            output.appendRaw("; ")
            appendCookieAttribute(trimmed, secrets, &output)
        }
    }

    /// Any other secret header: the whole value becomes a fingerprint (an empty value stays empty).
    static func appendOpaque(
        _ value: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter,
        _ output: inout JSONOutput
    ) {
        let trimmed = value.trimmingWhitespace()
        if !trimmed.isEmpty { secrets.append(trimmed, kind: .header(name: name), to: &output) }
    }

    /// `name=value` -> `name=fp:...` (`name=` when the value is empty); a piece without `=` is
    /// fingerprinted whole, since it may be a bare value (RFC 6265 §5.2 step 1 ignores it, but
    /// some clients send it).
    private static func appendCookiePair(
        _ pair: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else {
            secrets.append(pair, kind: .named("cookie"), to: &output)
            return
        }
        let cookieName = pair.slice(0, equals).trimmingWhitespace()
        output.appendEscaped(cookieName)
        output.appendByte(UInt8(ascii: "="))
        let cookieValue = pair.slice(equals + 1, pair.count).trimmingWhitespace()
        if !cookieValue.isEmpty { secrets.append(cookieValue, kind: .cookie(name: cookieName), to: &output) }
    }

    /// Cookie attributes of RFC 6265 §5.2 plus `Partitioned` and `Priority` stay readable, unless
    /// their value contains `=` (a sign of a folded second cookie, which RFC 6265 §3 forbids).
    /// Any other attribute keeps its name and has its value fingerprinted.
    private static func appendCookieAttribute(
        _ attribute: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        let equals = attribute.firstIndex(of: UInt8(ascii: "="))
        let name = attribute.slice(0, equals ?? attribute.count).trimmingWhitespace()
        let known = knownCookieAttributes.contains { name.equalsIgnoringASCIICase($0) }
        guard let equals else {
            if known {
                output.appendEscaped(name)
            } else {
                secrets.append(name, kind: .named("cookie-attribute"), to: &output)
            }
            return
        }
        let attributeValue = attribute.slice(equals + 1, attribute.count).trimmingWhitespace()
        output.appendEscaped(name)
        output.appendByte(UInt8(ascii: "="))
        if known && attributeValue.firstIndex(of: UInt8(ascii: "=")) == nil {
            output.appendEscaped(attributeValue)
        } else if !attributeValue.isEmpty {
            secrets.append(attributeValue, kind: .named("cookie-attribute"), to: &output)
        }
    }

    private static let knownCookieAttributes: [[UInt8]] = [
        "path", "domain", "expires", "max-age", "httponly", "secure", "samesite", "partitioned", "priority",
    ].map { Array($0.utf8) }
}

/// Calls `body` with each piece of `bytes` between `separator`s (an empty input gives one empty piece).
func forEachPiece(
    of bytes: UnsafeBufferPointer<UInt8>, separatedBy separator: UInt8,
    _ body: (UnsafeBufferPointer<UInt8>) -> Void
) {
    var start = 0
    while true {
        let end = bytes.firstIndex(of: separator, from: start) ?? bytes.count
        body(bytes.slice(start, end))
        if end == bytes.count { return }
        start = end + 1
    }
}
