/// Serialises HTTP/1.1 heads and chunked bodies into a byte buffer (RFC 9112).
///
/// Names, values, methods, targets and reasons are written as given: the caller has validated
/// them (a decoded head is always valid). Content-Length bodies need no encoding: append the bytes.
public enum HTTP1Encoder {
    private static let crlf: [UInt8] = [ASCII.cr, ASCII.lf]

    /// Appends `METHOD SP target SP HTTP/x.y CRLF`, the field lines and the empty line.
    public static func encode(_ head: HTTPRequestHead, into buffer: inout [UInt8]) {
        reserve(estimatedSize(head.headers) + head.method.utf8.count + head.target.utf8.count + 12, in: &buffer)
        buffer.append(contentsOf: head.method.utf8)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: head.target.utf8)
        buffer.append(ASCII.space)
        appendVersion(head.version, to: &buffer)
        buffer.append(contentsOf: crlf)
        appendFields(head.headers, to: &buffer)
        buffer.append(contentsOf: crlf)
    }

    /// Appends `HTTP/x.y SP status SP reason CRLF` (the SP stays when the reason is empty, as
    /// RFC 9112 §4 requires), the field lines and the empty line.
    public static func encode(_ head: HTTPResponseHead, into buffer: inout [UInt8]) {
        reserve(estimatedSize(head.headers) + head.reason.utf8.count + 16, in: &buffer)
        appendVersion(head.version, to: &buffer)
        buffer.append(ASCII.space)
        appendDecimal(head.status, to: &buffer)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: head.reason.utf8)
        buffer.append(contentsOf: crlf)
        appendFields(head.headers, to: &buffer)
        buffer.append(contentsOf: crlf)
    }

    /// Appends one chunk: hex size, CRLF, the bytes, CRLF (RFC 9112 §7.1). Writes nothing for empty
    /// input, since an empty chunk would end the body.
    public static func encodeChunk(_ bytes: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        reserve(bytes.count + 20, in: &buffer)
        appendHex(bytes.count, to: &buffer)
        buffer.append(contentsOf: crlf)
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
        buffer.append(contentsOf: crlf)
    }

    /// Appends one chunk (see ``encodeChunk(_:into:)-(UnsafeRawBufferPointer,_)``).
    public static func encodeChunk(_ bytes: [UInt8], into buffer: inout [UInt8]) {
        bytes.withUnsafeBytes { encodeChunk($0, into: &buffer) }
    }

    /// Appends one chunk (see ``encodeChunk(_:into:)-(UnsafeRawBufferPointer,_)``).
    public static func encodeChunk(_ bytes: ArraySlice<UInt8>, into buffer: inout [UInt8]) {
        bytes.withUnsafeBytes { encodeChunk($0, into: &buffer) }
    }

    /// Appends the last chunk `0 CRLF`, the trailer fields if any, and the final CRLF (RFC 9112 §7.1).
    public static func encodeLastChunk(trailers: HTTPHeaders?, into buffer: inout [UInt8]) {
        buffer.append(0x30)
        buffer.append(contentsOf: crlf)
        if let trailers { appendFields(trailers, to: &buffer) }
        buffer.append(contentsOf: crlf)
    }

    /// Makes room for `additional` bytes, growing geometrically: `reserveCapacity` alone allocates
    /// exactly what is asked, which turns many small appends into quadratic copying.
    private static func reserve(_ additional: Int, in buffer: inout [UInt8]) {
        let needed = buffer.count + additional
        if needed > buffer.capacity { buffer.reserveCapacity(max(needed, 2 * buffer.capacity)) }
    }

    private static func estimatedSize(_ headers: HTTPHeaders) -> Int {
        var size = 2
        for field in headers.fields { size += field.name.utf8.count + field.value.utf8.count + 4 }
        return size
    }

    private static func appendFields(_ headers: HTTPHeaders, to buffer: inout [UInt8]) {
        for field in headers.fields {
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(ASCII.colon)
            buffer.append(ASCII.space)
            appendValue(field, to: &buffer)
            buffer.append(contentsOf: crlf)
        }
    }

    /// UTF-8, except for values read as Latin-1 obs-text, which go back out byte for byte (a value
    /// changed since to hold scalars above U+00FF is written as UTF-8).
    private static func appendValue(_ field: HTTPHeaders.Field, to buffer: inout [UInt8]) {
        if field.encodesAsLatin1, field.value.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) {
            for scalar in field.value.unicodeScalars { buffer.append(UInt8(truncatingIfNeeded: scalar.value)) }
        } else {
            buffer.append(contentsOf: field.value.utf8)
        }
    }

    private static func appendVersion(_ version: HTTPVersion, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: [0x48, 0x54, 0x54, 0x50, ASCII.slash])  // "HTTP/"
        appendDecimal(version.major, to: &buffer)
        buffer.append(ASCII.period)
        appendDecimal(version.minor, to: &buffer)
    }

    private static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        precondition(value >= 0, "negative number in a start line")
        if value >= 10 { appendDecimal(value / 10, to: &buffer) }
        buffer.append(UInt8(truncatingIfNeeded: value % 10) + 0x30)
    }

    private static func appendHex(_ value: Int, to buffer: inout [UInt8]) {
        if value >= 16 { appendHex(value >> 4, to: &buffer) }
        let digit = UInt8(truncatingIfNeeded: value & 0xF)
        buffer.append(digit < 10 ? digit + 0x30 : digit - 10 + 0x61)
    }
}
