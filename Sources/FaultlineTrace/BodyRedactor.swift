import FaultlineCore

/// Replaces the secrets of a captured body before it is written: the values of secret fields of
/// a JSON body (RFC 8259) or an `application/x-www-form-urlencoded` form, then, in a capture with
/// pseudonyms, every secret already named anywhere in the capture wherever it occurs in the body.
///
/// A body that claims to be JSON but does not parse is treated as text: only the second pass
/// applies. Numbers under secret names are kept (a numeric one-time code is not a credential a
/// client presents again).
enum BodyRedactor {
    /// The redacted bytes of `body` (the bytes themselves when secrets are kept).
    static func redacted(
        _ body: UnsafeBufferPointer<UInt8>, contentType: String?, policy: RedactionPolicy, secrets: SecretWriter
    ) -> [UInt8] {
        guard !secrets.keepsRaw else { return Array(body) }
        var structured: [UInt8]?
        switch Format(contentType: contentType, body: body) {
        case .json: structured = JSONSecretRewriter(body, policy: policy, secrets: secrets).rewritten()
        case .form: structured = formRewritten(body, policy: policy, secrets: secrets)
        case .other: structured = nil
        }
        if let structured {
            return structured.withUnsafeBufferPointer { secrets.scrubbed($0) } ?? structured
        }
        return secrets.scrubbed(body) ?? Array(body)
    }

    private enum Format {
        case json, form, other

        init(contentType: String?, body: UnsafeBufferPointer<UInt8>) {
            // Bytes, not String.contains: this runs for every captured body (seen in a profile).
            let type = contentType.map(ASCII.lowercasedBytes) ?? []
            if Self.contains(type, Self.jsonType) {
                self = .json
            } else if Self.contains(type, Self.formType) {
                self = .form
            } else if type.isEmpty,
                let first = body.first(where: { !ASCII.isWhitespace($0) && $0 != 0x0A && $0 != 0x0D }),
                first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
            {
                self = .json
            } else {
                self = .other
            }
        }

        private static let jsonType = Array("json".utf8)
        private static let formType = Array("x-www-form-urlencoded".utf8)

        private static func contains(_ text: [UInt8], _ part: [UInt8]) -> Bool {
            guard text.count >= part.count else { return false }
            return (0...(text.count - part.count)).contains { start in
                text[start] == part[0] && text[start..<(start + part.count)].elementsEqual(part)
            }
        }
    }

    /// `name=value&…` (WHATWG URL §5.1): values of secret names replaced, everything else copied.
    private static func formRewritten(
        _ body: UnsafeBufferPointer<UInt8>, policy: RedactionPolicy, secrets: SecretWriter
    ) -> [UInt8] {
        var output = JSONOutput(capacity: body.count + 64)
        var first = true
        forEachPiece(of: body, separatedBy: UInt8(ascii: "&")) { pair in
            if !first { output.appendByte(UInt8(ascii: "&")) }
            first = false
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")), policy.isSecretBodyField(pair.slice(0, equals))
            else {
                output.append(pair)
                return
            }
            let name = pair.slice(0, equals)
            output.append(pair.slice(0, equals + 1))
            let value = pair.slice(equals + 1, pair.count)
            guard !value.isEmpty else { return }
            // `+` is a space in a form (WHATWG URL §5.1), then %XX as in a query.
            let spaced = value.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
            spaced.withUnsafeBufferPointer { spaced in
                PercentDecoding.withDecoded(spaced) { secrets.append($0, kind: .field(name: name), to: &output) }
            }
        }
        return output.withBytes { Array($0) }
    }
}

/// Copies a JSON text, replacing each string value whose member name is a secret field with what
/// stands for it. Returns nil for text that is not JSON, or nests deeper than `maximumDepth`.
private struct JSONSecretRewriter: ~Copyable {
    static let maximumDepth = 64

    let input: UnsafeBufferPointer<UInt8>
    let policy: RedactionPolicy
    let secrets: SecretWriter
    var index = 0
    var output: JSONOutput

    init(_ input: UnsafeBufferPointer<UInt8>, policy: RedactionPolicy, secrets: SecretWriter) {
        self.input = input
        self.policy = policy
        self.secrets = secrets
        output = JSONOutput(capacity: input.count + 64)
    }

    consuming func rewritten() -> [UInt8]? {
        copyWhitespace()
        guard value(secretName: nil, depth: 0) else { return nil }
        copyWhitespace()
        guard index == input.count else { return nil }
        return output.withBytes { Array($0) }
    }

    private mutating func value(secretName: UnsafeBufferPointer<UInt8>?, depth: Int) -> Bool {
        guard index < input.count, depth < Self.maximumDepth else { return false }
        switch input[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""):
            let start = index
            guard let decoded = string() else { return false }
            if let secretName, !decoded.isEmpty {
                output.appendByte(UInt8(ascii: "\""))
                decoded.withUnsafeBufferPointer { secrets.append($0, kind: .field(name: secretName), to: &output) }
                output.appendByte(UInt8(ascii: "\""))
            } else {
                output.append(input.slice(start, index))
            }
            return true
        default:
            // A number or a literal: copy up to the next delimiter.
            let start = index
            while index < input.count, !Self.isDelimiter(input[index]) { index += 1 }
            guard index > start else { return false }
            output.append(input.slice(start, index))
            return true
        }
    }

    private mutating func object(depth: Int) -> Bool {
        if copyOpening(UInt8(ascii: "{"), emptyWith: UInt8(ascii: "}")) { return true }
        while true {
            guard index < input.count, input[index] == UInt8(ascii: "\"") else { return false }
            let start = index
            guard let name = string() else { return false }
            output.append(input.slice(start, index))
            copyWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: ":") else { return false }
            output.appendByte(UInt8(ascii: ":"))
            index += 1
            copyWhitespace()
            let isSecret = name.withUnsafeBufferPointer { policy.isSecretBodyField($0) }
            let ok = name.withUnsafeBufferPointer { value(secretName: isSecret ? $0 : nil, depth: depth + 1) }
            guard ok else { return false }
            switch copySeparator(closer: UInt8(ascii: "}")) {
            case .next: continue
            case .closed: return true
            case .invalid: return false
            }
        }
    }

    private mutating func array(depth: Int) -> Bool {
        if copyOpening(UInt8(ascii: "["), emptyWith: UInt8(ascii: "]")) { return true }
        while true {
            guard value(secretName: nil, depth: depth + 1) else { return false }
            switch copySeparator(closer: UInt8(ascii: "]")) {
            case .next: continue
            case .closed: return true
            case .invalid: return false
            }
        }
    }

    /// Copies the opening bracket and the white space after it; true when `closer` follows at once
    /// (an empty container, closer copied too).
    private mutating func copyOpening(_ opener: UInt8, emptyWith closer: UInt8) -> Bool {
        output.appendByte(opener)
        index += 1
        copyWhitespace()
        guard index < input.count, input[index] == closer else { return false }
        output.appendByte(closer)
        index += 1
        return true
    }

    private enum Separator { case next, closed, invalid }

    /// After a member or element: copies `,` and the white space after it (`.next`), or `closer`
    /// (`.closed`); anything else, or the end, is not JSON (`.invalid`).
    private mutating func copySeparator(closer: UInt8) -> Separator {
        copyWhitespace()
        guard index < input.count else { return .invalid }
        let byte = input[index]
        output.appendByte(byte)
        index += 1
        if byte == closer { return .closed }
        guard byte == UInt8(ascii: ",") else { return .invalid }
        copyWhitespace()
        return .next
    }

    /// Reads a string at `index` (at its opening quote) and returns its decoded UTF-8 bytes.
    private mutating func string() -> [UInt8]? {
        index += 1
        var decoded: [UInt8] = []
        while index < input.count {
            let byte = input[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return decoded
            case UInt8(ascii: "\\"):
                index -= 1
                guard JSONEscape.decode(input, at: &index, into: &decoded, loneSurrogates: .refuse) == nil else {
                    return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                decoded.append(byte)
            }
        }
        return nil
    }

    private mutating func copyWhitespace() {
        while index < input.count, Self.isWhitespace(input[index]) {
            output.appendByte(input[index])
            index += 1
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }
}
