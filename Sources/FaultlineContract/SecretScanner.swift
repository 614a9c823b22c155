import FaultlineCore
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
///
/// It runs on every event of traces of millions of lines, so it works on UTF-8 bytes.
struct SecretScanner {
    /// A capture writes secrets as pseudonyms (`flp.KIND.LINEAGE.N`): redacted as well as `fp:…`.
    var acceptsPseudonyms = false

    /// Where in the event the suspected secret is, for a ``TraceProblem`` message.
    func findings(in event: TraceEvent) -> [String] {
        var found: [String] = []
        if let headers = event.attributes["headers"]?.arrayValue {
            for header in headers {
                guard let pair = header.arrayValue, pair.count == 2, let name = pair[0].stringValue,
                    let value = pair[1].stringValue
                else { continue }
                if let problem = headerProblem(name: name, value: value) { found.append(problem) }
            }
        }
        for key in ["url", "path"] {
            if let target = event.string(key), let problem = targetProblem(target) {
                found.append("'\(key)' \(problem)")
            }
        }
        for key in ["credentials", "issued", "presented", "replaced"] {
            guard let list = event.attributes[key]?.arrayValue else { continue }
            for entry in list {
                guard let text = entry.stringValue, !credentialEntryIsRedacted(text) else { continue }
                found.append("an entry of '\(key)' is not kind=fp:…")
            }
        }
        return found
    }

    /// `fp:` and 16 lowercase hex digits.
    static func isFingerprint(_ text: some StringProtocol) -> Bool {
        var copy = String(text)
        return copy.withUTF8 { isFingerprint(Bytes($0)) }
    }

    func headerProblem(name: String, value: String) -> String? {
        var name = name
        guard let kind = name.withUTF8({ HeaderKind(Bytes($0)) }) else { return nil }
        var value = value
        let redacted = value.withUTF8 { raw -> Bool in
            let bytes = Bytes(raw)
            switch kind {
            case .authorization: return authorizationIsRedacted(bytes)
            case .cookie: return cookieIsRedacted(bytes)
            case .setCookie: return setCookieIsRedacted(bytes)
            case .url: return targetProblem(bytes) == nil
            }
        }
        guard !redacted else { return nil }
        switch kind {
        case .authorization: return "the \(name) header is not 'Scheme fp:…'"
        case .cookie: return "a cookie in the Cookie header is not name=fp:…"
        case .setCookie: return "a Set-Cookie header carries a value that is not a fingerprint"
        case .url:
            return "the \(name) header " + (value.withUTF8 { targetProblem(Bytes($0)) } ?? "shows a secret in clear")
        }
    }

    /// A reason when a URL or target shows a password or a secret parameter in clear.
    func targetProblem(_ target: String) -> String? {
        var target = target
        return target.withUTF8 { targetProblem(Bytes($0)) }
    }

    // MARK: Byte-level checks

    /// A view of UTF-8 bytes with the few operations the checks need.
    struct Bytes {
        let buffer: UnsafeBufferPointer<UInt8>
        let start: Int
        let end: Int

        init(_ buffer: UnsafeBufferPointer<UInt8>) {
            self.buffer = buffer
            start = 0
            end = buffer.count
        }

        init(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
            self.buffer = buffer
            self.start = start
            self.end = end
        }

        var count: Int { end - start }
        var isEmpty: Bool { start >= end }
        subscript(_ offset: Int) -> UInt8 { buffer[start + offset] }

        func slice(_ from: Int, _ to: Int) -> Bytes { Bytes(buffer, start + from, start + to) }

        func firstIndex(of byte: UInt8, from: Int = 0) -> Int? {
            var index = from
            while index < count {
                if self[index] == byte { return index }
                index += 1
            }
            return nil
        }

        func lastIndex(of byte: UInt8, before limit: Int) -> Int? {
            var index = limit
            while index > 0 {
                index -= 1
                if self[index] == byte { return index }
            }
            return nil
        }

        /// Without leading and trailing spaces and tabs.
        var trimmed: Bytes {
            var low = start
            var high = end
            while low < high, buffer[low] == 0x20 || buffer[low] == 0x09 { low += 1 }
            while high > low, buffer[high - 1] == 0x20 || buffer[high - 1] == 0x09 { high -= 1 }
            return Bytes(buffer, low, high)
        }

        /// Case-insensitive equality with a lowercase ASCII name.
        func equalsLowercase(_ name: StaticString) -> Bool {
            guard count == name.utf8CodeUnitCount else { return false }
            let pointer = name.utf8Start
            for index in 0..<count where Self.lower(self[index]) != pointer[index] { return false }
            return true
        }

        func contains(_ byte: UInt8) -> Bool { firstIndex(of: byte) != nil }

        /// Calls `body` with each piece between `separator`s.
        func forEachPiece(separatedBy separator: UInt8, _ body: (Bytes) -> Bool) -> Bool {
            var low = 0
            while true {
                let high = firstIndex(of: separator, from: low) ?? count
                if !body(slice(low, high)) { return false }
                if high == count { return true }
                low = high + 1
            }
        }

        static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
    }

    private enum HeaderKind {
        case authorization, cookie, setCookie, url

        init?(_ name: Bytes) {
            switch name.count {
            case 6 where name.equalsLowercase("cookie"): self = .cookie
            case 7 where name.equalsLowercase("referer"): self = .url
            case 8 where name.equalsLowercase("location"): self = .url
            case 10 where name.equalsLowercase("set-cookie"): self = .setCookie
            case 13 where name.equalsLowercase("authorization"): self = .authorization
            case 16 where name.equalsLowercase("content-location"): self = .url
            case 19 where name.equalsLowercase("proxy-authorization"): self = .authorization
            default: return nil
            }
        }
    }

    /// A fingerprint, or in a capture with pseudonyms, a pseudonym.
    func isRedacted(_ bytes: Bytes) -> Bool {
        Self.isFingerprint(bytes) || (acceptsPseudonyms && Self.isPseudonym(bytes))
    }

    /// A capture's pseudonym (FaultlineTrace's `Pseudonym`).
    static func isPseudonym(_ bytes: Bytes) -> Bool {
        Pseudonym.isPseudonym(
            String(decoding: UnsafeBufferPointer(rebasing: bytes.buffer[bytes.start..<bytes.end]), as: UTF8.self))
    }

    static func isFingerprint(_ bytes: Bytes) -> Bool {
        guard bytes.count == 19, bytes[0] == UInt8(ascii: "f"), bytes[1] == UInt8(ascii: "p"),
            bytes[2] == UInt8(ascii: ":")
        else { return false }
        for index in 3..<19 {
            let byte = bytes[index]
            guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
        }
        return true
    }

    private func credentialEntryIsRedacted(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { raw in
            let bytes = Bytes(raw)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return isRedacted(bytes) }
            return isRedacted(bytes.slice(equals + 1, bytes.count))
        }
    }

    private func authorizationIsRedacted(_ value: Bytes) -> Bool {
        let trimmed = value.trimmed
        guard !trimmed.isEmpty else { return true }
        guard let space = trimmed.firstIndex(of: 0x20) else { return isRedacted(trimmed) }
        for index in 0..<space where !HTTPToken.isTokenByte(trimmed[index]) { return false }
        return isRedacted(trimmed.slice(space + 1, trimmed.count).trimmed)
    }

    private func cookieIsRedacted(_ value: Bytes) -> Bool {
        value.forEachPiece(separatedBy: UInt8(ascii: ";")) { piece in
            let pair = piece.trimmed
            return pair.isEmpty || pairIsRedacted(pair)
        }
    }

    private func setCookieIsRedacted(_ value: Bytes) -> Bool {
        var first = true
        return value.forEachPiece(separatedBy: UInt8(ascii: ";")) { piece in
            let part = piece.trimmed
            if first {
                first = false
                return part.isEmpty || pairIsRedacted(part)
            }
            guard !part.isEmpty else { return true }
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else {
                return isKnownCookieAttribute(part) || isRedacted(part)
            }
            let attributeValue = part.slice(equals + 1, part.count).trimmed
            if attributeValue.isEmpty || isRedacted(attributeValue) { return true }
            return isKnownCookieAttribute(part.slice(0, equals).trimmed) && !attributeValue.contains(UInt8(ascii: "="))
        }
    }

    /// RFC 6265 §5.2 attributes plus `Partitioned` and `Priority`.
    private func isKnownCookieAttribute(_ name: Bytes) -> Bool {
        name.equalsLowercase("path") || name.equalsLowercase("domain") || name.equalsLowercase("expires")
            || name.equalsLowercase("max-age") || name.equalsLowercase("httponly") || name.equalsLowercase("secure")
            || name.equalsLowercase("samesite") || name.equalsLowercase("partitioned")
            || name.equalsLowercase("priority")
    }

    /// `name=fp:…`, `name=` or a bare `fp:…`.
    private func pairIsRedacted(_ pair: Bytes) -> Bool {
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return isRedacted(pair) }
        let value = pair.slice(equals + 1, pair.count).trimmed
        return value.isEmpty || isRedacted(value)
    }

    private func targetProblem(_ target: Bytes) -> String? {
        var position = 0
        if let authorityStart = authorityStart(target) {
            var authorityEnd = authorityStart
            while authorityEnd < target.count, !"/?#".utf8.contains(target[authorityEnd]) { authorityEnd += 1 }
            if let at = target.slice(0, authorityEnd).lastIndex(of: UInt8(ascii: "@"), before: authorityEnd),
                at >= authorityStart
            {
                let userinfo = target.slice(authorityStart, at)
                if let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) {
                    let password = userinfo.slice(colon + 1, userinfo.count)
                    if !password.isEmpty && !isRedacted(password) { return "shows a password in clear" }
                } else if !userinfo.isEmpty && !isRedacted(userinfo) {
                    return "shows userinfo in clear"
                }
            }
            position = authorityEnd
        }
        while position < target.count, target[position] != UInt8(ascii: "?"), target[position] != UInt8(ascii: "#") {
            position += 1
        }
        guard position < target.count else { return nil }
        // Parameters of the query and the fragment (OAuth's implicit grant puts tokens there,
        // RFC 6749 §4.2.2), split at `&`, `?` and `#`.
        let parameters = target.slice(position + 1, target.count)
        var low = 0
        while low <= parameters.count {
            var high = low
            while high < parameters.count, !"&?#".utf8.contains(parameters[high]) { high += 1 }
            let parameter = parameters.slice(low, high)
            if let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
                let secret = secretParameterName(parameter.slice(0, equals))
            {
                let value = parameter.slice(equals + 1, parameter.count)
                if !value.isEmpty && !isRedacted(value) { return "shows the parameter '\(secret)' in clear" }
            }
            low = high + 1
        }
        return nil
    }

    /// Where the authority starts in `scheme://…`, or nil.
    private func authorityStart(_ target: Bytes) -> Int? {
        var index = 0
        while index < target.count {
            let byte = target[index]
            if byte == UInt8(ascii: ":") { break }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { return nil }
            index += 1
        }
        guard index + 2 < target.count, index > 0, target[index + 1] == UInt8(ascii: "/"),
            target[index + 2] == UInt8(ascii: "/")
        else { return nil }
        return index + 3
    }

    private static let secretParameters: [[UInt8]] = RedactionPolicy.defaultSecretQueryParameters.map { Array($0.utf8) }

    /// The secret parameter `name` is (percent-decoded, case-insensitive), or nil.
    private func secretParameterName(_ name: Bytes) -> String? {
        guard name.count <= 3 * 13 else { return nil }  // the longest name, fully percent-encoded
        var decoded: [UInt8] = []
        decoded.reserveCapacity(name.count)
        var index = 0
        while index < name.count {
            let byte = name[index]
            if byte == UInt8(ascii: "%"), index + 2 < name.count, let high = HexDigit.value(name[index + 1]),
                let low = HexDigit.value(name[index + 2])
            {
                decoded.append(Bytes.lower(high << 4 | low))
                index += 3
            } else {
                decoded.append(Bytes.lower(byte))
                index += 1
            }
        }
        guard let match = Self.secretParameters.first(where: { $0 == decoded }) else { return nil }
        return String(decoding: match, as: UTF8.self)
    }
}
