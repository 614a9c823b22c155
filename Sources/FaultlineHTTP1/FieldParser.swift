/// What the framing rules need to know about a header section, gathered while its lines are
/// parsed so that no second pass over the fields is needed.
struct FramingFields: Sendable {
    var hostCount = 0
    /// Value of the first Host field, as a byte range of the head.
    var hostValue: Range<Int>?
    var hasContentLength = false
    var hasTransferEncoding = false
    private var contentLengthValue: Int64?
    private var contentLengthInvalid = false
    private var contentLengthConflict = false

    /// RFC 9110 §8.6 and RFC 9112 §6.3 item 5: `Content-Length` is `1*DIGIT`; a list or repeated
    /// fields whose values are all identical count as one value, differing values are an error.
    mutating func noteContentLength(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        hasContentLength = true
        var elementStart = start
        while true {
            let comma = ASCII.firstIndex(of: ASCII.comma, in: bytes, from: elementStart, to: end) ?? end
            var lower = elementStart
            var upper = comma
            while lower < upper, ASCII.isWhitespace(bytes[lower]) { lower += 1 }
            while upper > lower, ASCII.isWhitespace(bytes[upper - 1]) { upper -= 1 }
            if let value = Self.decimal(bytes, lower, upper) {
                if let previous = contentLengthValue, previous != value { contentLengthConflict = true }
                contentLengthValue = value
            } else {
                contentLengthInvalid = true
            }
            if comma == end { break }
            elementStart = comma + 1
        }
    }

    /// The agreed Content-Length; call only when `hasContentLength`.
    func contentLength() throws(HTTP1Error) -> Int64 {
        if contentLengthInvalid { throw .invalidContentLength }
        if contentLengthConflict { throw .conflictingContentLength }
        guard let contentLengthValue else { preconditionFailure("contentLength() without a Content-Length field") }
        return contentLengthValue
    }

    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int64? {
        guard start < end else { return nil }
        var value: Int64 = 0
        for index in start..<end {
            let byte = bytes[index]
            guard ASCII.isDigit(byte) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte &- 0x30))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }
}

/// Parses the field lines of a complete head or trailer section (RFC 9112 §5, RFC 9110 §5.5).
enum FieldParser {
    /// Parses the lines in `bytes[start..<end]`, which ends with the empty line, into headers.
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, expectedCount: Int,
        framing: inout FramingFields
    ) throws(HTTP1Error) -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(expectedCount)
        var lineStart = start
        while lineStart < end {
            guard let lf = ASCII.firstIndex(of: ASCII.lf, in: bytes, from: lineStart, to: end) else {
                preconditionFailure("the scanner hands over complete lines only")
            }
            var contentEnd = lf
            if contentEnd > lineStart, bytes[contentEnd - 1] == ASCII.cr { contentEnd -= 1 }
            if contentEnd == lineStart { break }
            fields.append(try parseLine(bytes, lineStart, contentEnd, framing: &framing))
            lineStart = lf + 1
        }
        return HTTPHeaders(fields: fields)
    }

    /// `field-name ":" OWS field-value OWS`.
    private static func parseLine(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, framing: inout FramingFields
    ) throws(HTTP1Error) -> HTTPHeaders.Field {
        // RFC 9112 §5.2: obs-fold is rejected; RFC 9112 §2.2: so is whitespace before the first field.
        if ASCII.isWhitespace(bytes[start]) { throw .obsoleteLineFolding }
        // RFC 9112 §2.2: a bare CR in a field line is invalid.
        if ASCII.firstIndex(of: ASCII.cr, in: bytes, from: start, to: end) != nil { throw .bareCR }
        var nameEnd = start
        while nameEnd < end, ASCII.isTokenChar(bytes[nameEnd]) { nameEnd += 1 }
        guard nameEnd < end, bytes[nameEnd] == ASCII.colon else {
            guard ASCII.firstIndex(of: ASCII.colon, in: bytes, from: nameEnd, to: end) != nil else {
                throw .missingColon
            }
            // RFC 9112 §5.1: whitespace between name and colon MUST be rejected (smuggling vector).
            var afterSpace = nameEnd
            while afterSpace < end, ASCII.isWhitespace(bytes[afterSpace]) { afterSpace += 1 }
            if afterSpace > nameEnd, afterSpace < end, bytes[afterSpace] == ASCII.colon, nameEnd > start {
                throw .whitespaceBeforeColon
            }
            throw .invalidFieldName
        }
        guard nameEnd > start else { throw .invalidFieldName }
        var valueStart = nameEnd + 1
        var valueEnd = end
        while valueStart < valueEnd, ASCII.isWhitespace(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, ASCII.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        for index in valueStart..<valueEnd where !ASCII.isFieldValueByte(bytes[index]) {
            throw .invalidFieldValue
        }
        noteFramingField(bytes, start, nameEnd, valueStart, valueEnd, &framing)
        let (value, latin1) = ASCII.fieldValue(bytes, valueStart, valueEnd)
        return HTTPHeaders.Field(name: ASCII.string(bytes, start, nameEnd), value: value, encodesAsLatin1: latin1)
    }

    @inline(__always)
    private static func noteFramingField(
        _ bytes: UnsafeBufferPointer<UInt8>, _ nameStart: Int, _ nameEnd: Int, _ valueStart: Int, _ valueEnd: Int,
        _ framing: inout FramingFields
    ) {
        switch nameEnd - nameStart {
        case 4 where ASCII.equalsIgnoringCase(bytes, nameStart, nameEnd, "host"):
            framing.hostCount += 1
            if framing.hostValue == nil { framing.hostValue = valueStart..<valueEnd }
        case 14 where ASCII.equalsIgnoringCase(bytes, nameStart, nameEnd, "content-length"):
            framing.noteContentLength(bytes, valueStart, valueEnd)
        case 17 where ASCII.equalsIgnoringCase(bytes, nameStart, nameEnd, "transfer-encoding"):
            framing.hasTransferEncoding = true
        default:
            break
        }
    }
}
