/// Writing request targets and URLs with their secrets replaced by fingerprints.
extension RedactionPolicy {
    /// Appends the JSON string (with quotes) for a request target or URL.
    func appendTarget(_ target: String, secrets: SecretWriter, to output: inout JSONOutput) {
        output.appendByte(UInt8(ascii: "\""))
        withUTF8(of: target) { appendTargetContents($0, secrets: secrets, to: &output) }
        output.appendByte(UInt8(ascii: "\""))
    }

    /// Appends the escaped inside of the JSON string for a target: the userinfo password of an
    /// absolute URL (RFC 3986 §3.2.1, deprecated but still sent) and the values of secret
    /// parameters in the query and the fragment (OAuth's implicit grant returns tokens in the
    /// fragment, RFC 6749 §4.2.2) become fingerprints; the rest is copied.
    func appendTargetContents(
        _ target: UnsafeBufferPointer<UInt8>, secrets: SecretWriter, to output: inout JSONOutput
    ) {
        var position = 0
        if let authorityStart = Self.authorityStart(of: target) {
            let authorityEnd = target.firstIndex(
                ofAny: UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), from: authorityStart)
            if let at = Self.lastIndex(of: UInt8(ascii: "@"), in: target, authorityStart..<authorityEnd) {
                output.appendEscaped(target.slice(0, authorityStart))
                Self.appendUserinfo(target.slice(authorityStart, at), secrets, &output)
                position = at
            }
        }
        let queryOrFragment = target.firstIndex(
            ofAny: UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "#"), from: position)
        output.appendEscaped(target.slice(position, queryOrFragment))
        position = queryOrFragment
        if position < target.count && target[position] == UInt8(ascii: "?") {
            let fragment = target.firstIndex(of: UInt8(ascii: "#"), from: position) ?? target.count
            output.appendByte(UInt8(ascii: "?"))
            appendParameters(target.slice(position + 1, fragment), secrets, &output)
            position = fragment
        }
        if position < target.count {
            output.appendByte(UInt8(ascii: "#"))
            appendParameters(target.slice(position + 1, target.count), secrets, &output)
        }
    }

    /// Where the authority starts: after `scheme://` (RFC 3986 §3) or the `//` of a network-path
    /// reference (§4.2, seen in Location headers), or at 0 for an authority-form target
    /// (RFC 9112 §3.2.3, where userinfo is not allowed but a client may still send it).
    private static func authorityStart(of target: UnsafeBufferPointer<UInt8>) -> Int? {
        if target.count >= 2 && target[0] == UInt8(ascii: "/") && target[1] == UInt8(ascii: "/") { return 2 }
        guard let first = target.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") else { return nil }
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        var index = 0
        while index < target.count {
            let byte = target[index]
            let isSchemeCharacter =
                ASCII.lowercased(byte) >= UInt8(ascii: "a") && ASCII.lowercased(byte) <= UInt8(ascii: "z")
                || (index > 0 && (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") || "+-.".utf8.contains(byte)))
            if !isSchemeCharacter { break }
            index += 1
        }
        if index > 0 && index + 2 < target.count && target[index] == UInt8(ascii: ":")
            && target[index + 1] == UInt8(ascii: "/") && target[index + 2] == UInt8(ascii: "/")
        {
            return index + 3
        }
        return 0
    }

    /// `user:password` -> `user:fp:...`; a userinfo without `:` may be a bare token
    /// (`https://TOKEN@host`), so it is fingerprinted whole.
    private static func appendUserinfo(
        _ userinfo: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        guard let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) else {
            if !userinfo.isEmpty { secrets.append(userinfo, kind: .named("userinfo"), to: &output) }
            return
        }
        output.appendEscaped(userinfo.slice(0, colon + 1))
        let password = userinfo.slice(colon + 1, userinfo.count)
        if !password.isEmpty { secrets.append(password, kind: .named("password"), to: &output) }
    }

    /// `name=value&name=value`: values of secret names become the fingerprint of their
    /// percent-decoded bytes, so they match the same credential seen in a header or a JSON body.
    private func appendParameters(
        _ parameters: UnsafeBufferPointer<UInt8>, _ secrets: SecretWriter, _ output: inout JSONOutput
    ) {
        var first = true
        forEachPiece(of: parameters, separatedBy: UInt8(ascii: "&")) { parameter in
            if !first { output.appendByte(UInt8(ascii: "&")) }
            first = false
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
                isSecretQueryParameter(parameter.slice(0, equals))
            else {
                output.appendEscaped(parameter)
                return
            }
            output.appendEscaped(parameter.slice(0, equals + 1))
            let value = parameter.slice(equals + 1, parameter.count)
            if secrets.keepsRaw {
                output.appendEscaped(value)
            } else if !value.isEmpty {
                let name = parameter.slice(0, equals)
                PercentDecoding.withDecoded(value) { secrets.append($0, kind: .field(name: name), to: &output) }
            }
        }
    }

    private static func lastIndex(
        of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) -> Int? {
        var index = range.upperBound
        while index > range.lowerBound {
            index -= 1
            if bytes[index] == byte { return index }
        }
        return nil
    }
}
