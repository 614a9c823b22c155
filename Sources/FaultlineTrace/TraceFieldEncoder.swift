import FaultlineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Encodes trace fields as JSON, redacting the secret-bearing cases on the way.
///
/// Stateless apart from the policy and the key, so every thread encodes its own event outside
/// the recorder's lock.
struct TraceFieldEncoder: Sendable {
    let policy: RedactionPolicy
    var secrets: SecretWriter

    /// Appends `,"key":value` for each field. At the top level of a line, a key the line itself
    /// uses (`seq`, `wall`, `mono_ns`, `event`, `conn`, `flow`) is the caller's bug: it would make
    /// a duplicate key that no reader accepts.
    func appendFields(_ fields: [TraceField], to output: inout JSONOutput, topLevel: Bool) {
        if topLevel, secrets.namesPseudonyms {
            // A secret first seen in this event is named after the lineage the event names.
            var named = self
            named.secrets.lineage =
                fields.lazy.compactMap { field -> String? in
                    if field.key == "lineage", case .string(let lineage) = field.value { return lineage }
                    return nil
                }.first
            named.appendEachField(fields, to: &output, topLevel: topLevel)
            return
        }
        appendEachField(fields, to: &output, topLevel: topLevel)
    }

    private func appendEachField(_ fields: [TraceField], to output: inout JSONOutput, topLevel: Bool) {
        // Through the array's buffer, each field borrowed where it lies: a `for field in fields`
        // loop copied every field out (retaining its key and value) and destroyed the copy.
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                output.appendByte(UInt8(ascii: ","))
                withUTF8(of: fields[index].key) { key in
                    precondition(
                        !topLevel || !Self.isReservedKey(key), "trace field key \"\(fields[index].key)\" is reserved")
                    output.appendByte(UInt8(ascii: "\""))
                    output.appendEscaped(key)
                    output.appendRaw("\":")
                }
                appendValue(fields[index].value, to: &output)
            }
        }
    }

    /// Whether `key` is one of the line's own keys; compares lengths first, as this runs per field.
    @inline(__always)
    static func isReservedKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        func equals(_ reserved: StaticString) -> Bool {
            memcmp(key.baseAddress!, reserved.utf8Start, key.count) == 0
        }
        switch key.count {
        case 3: return equals("seq")
        case 4: return equals("wall") || equals("conn") || equals("flow")
        case 5: return equals("event")
        case 7: return equals("mono_ns")
        default: return false
        }
    }

    /// Appends one value.
    func appendValue(_ value: borrowing TraceFieldValue, to output: inout JSONOutput) {
        switch value {
        case .string(let string):
            output.appendString(string)
        case .int(let integer):
            output.appendInteger(integer)
        case .double(let number):
            output.appendDouble(number)
        case .bool(let flag):
            output.appendRaw(flag ? "true" : "false")
        case .null:
            output.appendRaw("null")
        case .strings(let strings):
            output.appendByte(UInt8(ascii: "["))
            for (index, string) in strings.enumerated() {
                if index > 0 { output.appendByte(UInt8(ascii: ",")) }
                output.appendString(string)
            }
            output.appendByte(UInt8(ascii: "]"))
        case .object(let fields):
            output.appendByte(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { output.appendByte(UInt8(ascii: ",")) }
                output.appendKey(field.key)
                appendValue(field.value, to: &output)
            }
            output.appendByte(UInt8(ascii: "}"))
        case .headers(let headers):
            appendHeaders(headers, to: &output)
        case .target(let target):
            policy.appendTarget(target, secrets: secrets, to: &output)
        case .secret(let secret):
            output.appendByte(UInt8(ascii: "\""))
            withUTF8(of: secret) { secrets.append($0, kind: .named("secret"), to: &output) }
            output.appendByte(UInt8(ascii: "\""))
        case .body(let summary):
            output.appendRaw("{\"length\":")
            output.appendInteger(summary.length)
            output.appendRaw(",\"fp\":")
            output.appendString(summary.fingerprint)
            output.appendByte(UInt8(ascii: "}"))
        case .content(let content):
            appendContent(content, to: &output)
        }
    }

    /// A captured body: redacted, then written as UTF-8 text when it is, else as base64.
    private func appendContent(_ content: CapturedBody, to output: inout JSONOutput) {
        output.appendRaw("{\"length\":")
        output.appendInteger(content.length)
        let redacted = content.bytes.withUnsafeBufferPointer {
            BodyRedactor.redacted($0, contentType: content.contentType, policy: policy, secrets: secrets)
        }
        redacted.withUnsafeBufferPointer { bytes in
            // A body cut by the limit may end inside a character: the whole characters are text.
            let text = content.truncated ? bytes.slice(0, UTF8Validation.completePrefixLength(bytes)) : bytes
            if UTF8Validation.isValid(text) {
                output.appendRaw(",\"encoding\":\"utf8\",\"data\":\"")
                output.appendEscaped(text)
            } else {
                output.appendRaw(",\"encoding\":\"base64\",\"data\":\"")
                Base64.encode(bytes) { output.append($0) }
            }
            output.appendByte(UInt8(ascii: "\""))
        }
        if content.truncated { output.appendRaw(",\"truncated\":true") }
        output.appendByte(UInt8(ascii: "}"))
    }

    /// `[[name, value], ...]`, keeping wire order and repeated names (RFC 9110 §5.3).
    private func appendHeaders(_ headers: [(name: String, value: String)], to output: inout JSONOutput) {
        output.appendByte(UInt8(ascii: "["))
        for (index, header) in headers.enumerated() {
            output.appendRaw(index > 0 ? ",[\"" : "[\"")
            withUTF8(of: header.name) { name in
                output.appendEscaped(name)
                output.appendRaw("\",")
                withUTF8(of: header.value) { value in
                    policy.appendHeaderValue(name: name, value: value, secrets: secrets, to: &output)
                }
            }
            output.appendByte(UInt8(ascii: "]"))
        }
        output.appendByte(UInt8(ascii: "]"))
    }
}
