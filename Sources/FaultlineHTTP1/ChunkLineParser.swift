import FaultlineCore

/// Parses a complete chunk-size line, without its CRLF (RFC 9112 §7.1, §7.1.1):
/// `chunk-size [ chunk-ext ]` with `chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )`.
///
/// Extensions are validated and dropped. The grammar is applied strictly (no trailing whitespace,
/// no bare LF) because leniency in chunk lines is a known request-smuggling vector.
enum ChunkLineParser {
    /// The chunk size; throws for more than 16 hex digits, a size beyond Int64, or a bad extension.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws(HTTP1Error) -> Int64 {
        var index = start
        var size: Int64 = 0
        while index < end, let digit = HexDigit.value(bytes[index]) {
            guard index - start < 16, size <= Int64.max >> 4 else { throw .invalidChunkSize }
            size = size << 4 | Int64(digit)
            index += 1
        }
        guard index > start else { throw .invalidChunkSize }
        if index < end, !ASCII.isWhitespace(bytes[index]), bytes[index] != ASCII.semicolon {
            throw .invalidChunkSize
        }
        try validateExtensions(bytes, index, end)
        return size
    }

    private static func validateExtensions(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws(HTTP1Error) {
        var index = start
        while index < end {
            index = skipWhitespace(bytes, index, end)
            guard index < end, bytes[index] == ASCII.semicolon else { throw .invalidChunkExtension }
            index = skipWhitespace(bytes, index + 1, end)
            let nameStart = index
            while index < end, ASCII.isTokenChar(bytes[index]) { index += 1 }
            guard index > nameStart else { throw .invalidChunkExtension }
            let afterName = skipWhitespace(bytes, index, end)
            guard afterName < end, bytes[afterName] == ASCII.equals else { continue }
            index = skipWhitespace(bytes, afterName + 1, end)
            guard index < end else { throw .invalidChunkExtension }
            if bytes[index] == ASCII.quote {
                index = try endOfQuotedString(bytes, index, end)
            } else {
                let valueStart = index
                while index < end, ASCII.isTokenChar(bytes[index]) { index += 1 }
                guard index > valueStart else { throw .invalidChunkExtension }
            }
        }
    }

    @inline(__always)
    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var index = start
        while index < end, ASCII.isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    /// RFC 9110 §5.6.4: `DQUOTE *( qdtext / quoted-pair ) DQUOTE`; returns the index after the closing quote.
    private static func endOfQuotedString(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws(HTTP1Error) -> Int {
        var index = start + 1
        while index < end {
            let byte = bytes[index]
            if byte == ASCII.quote { return index + 1 }
            if byte == ASCII.backslash {
                guard index + 1 < end, ASCII.isFieldValueByte(bytes[index + 1]) else { throw .invalidChunkExtension }
                index += 2
            } else {
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text; '"' and '\' were handled above.
                guard ASCII.isFieldValueByte(byte) else { throw .invalidChunkExtension }
                index += 1
            }
        }
        throw .invalidChunkExtension
    }
}
