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
    let fingerprinter: Fingerprinter

    /// Appends `,"key":value` for each field. At the top level of a line, a key the line itself
    /// uses (`seq`, `wall`, `mono_ns`, `event`, `conn`, `flow`) is the caller's bug: it would make
    /// a duplicate key that no reader accepts.
    func appendFields(_ fields: [TraceField], to output: inout JSONOutput, topLevel: Bool) {
        for field in fields {
            output.appendByte(UInt8(ascii: ","))
            withUTF8(of: field.key) { key in
                precondition(!topLevel || !Self.isReservedKey(key), "trace field key \"\(field.key)\" is reserved")
                output.appendByte(UInt8(ascii: "\""))
                output.appendEscaped(key)
                output.appendRaw("\":")
            }
            appendValue(field.value, to: &output)
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
    func appendValue(_ value: TraceFieldValue, to output: inout JSONOutput) {
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
            policy.appendTarget(target, fingerprinter: fingerprinter, to: &output)
        case .secret(let secret):
            output.appendByte(UInt8(ascii: "\""))
            fingerprinter.append(secret, to: &output)
            output.appendByte(UInt8(ascii: "\""))
        case .body(let summary):
            output.appendRaw("{\"length\":")
            output.appendInteger(summary.length)
            output.appendRaw(",\"fp\":")
            output.appendString(summary.fingerprint)
            output.appendByte(UInt8(ascii: "}"))
        }
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
                    policy.appendHeaderValue(name: name, value: value, fingerprinter: fingerprinter, to: &output)
                }
            }
            output.appendByte(UInt8(ascii: "]"))
        }
        output.appendByte(UInt8(ascii: "]"))
    }
}
