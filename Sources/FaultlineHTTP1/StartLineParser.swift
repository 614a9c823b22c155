/// The parts of a request-line, as byte ranges plus the version.
struct ParsedRequestLine: Sendable {
    var method: Range<Int>
    var target: Range<Int>
    var version: HTTPVersion
}

/// The parts of a status-line.
struct ParsedStatusLine: Sendable {
    var version: HTTPVersion
    var status: Int
    var reason: Range<Int>
}

/// Parses complete start lines (RFC 9112 §3 and §4); the scanner has already bounded their length.
enum StartLineParser {
    /// `method SP request-target SP HTTP-version`, with exactly one SP between the parts.
    static func parseRequestLine(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(HTTP1Error)
        -> ParsedRequestLine
    {
        let start = line.lowerBound
        let end = line.upperBound
        if ASCII.firstIndex(of: ASCII.cr, in: bytes, from: start, to: end) != nil { throw .bareCR }
        var index = start
        while index < end, ASCII.isTokenChar(bytes[index]) { index += 1 }
        guard index > start, index < end, bytes[index] == ASCII.space else { throw .invalidRequestLine }
        let method = start..<index
        index += 1
        let targetStart = index
        // RFC 9112 §3.2: the request-target is visible ASCII; whitespace is not allowed inside it.
        while index < end, bytes[index] != ASCII.space {
            guard ASCII.isVisible(bytes[index]) else { throw .invalidRequestLine }
            index += 1
        }
        guard index > targetStart, index < end else { throw .invalidRequestLine }
        let target = targetStart..<index
        guard let version = parseVersion(bytes, index + 1, end) else { throw .invalidRequestLine }
        guard version == .http1_1 || version == .http1_0 else { throw .unsupportedVersion }
        return ParsedRequestLine(method: method, target: target, version: version)
    }

    /// `HTTP-version SP status-code SP [ reason-phrase ]`. A missing SP after the status code is
    /// tolerated when the reason is empty, as many servers omit it.
    static func parseStatusLine(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(HTTP1Error)
        -> ParsedStatusLine
    {
        let start = line.lowerBound
        let end = line.upperBound
        if ASCII.firstIndex(of: ASCII.cr, in: bytes, from: start, to: end) != nil { throw .bareCR }
        guard end - start >= 12, let version = parseVersion(bytes, start, start + 8), bytes[start + 8] == ASCII.space
        else { throw .invalidStatusLine }
        guard version.major == 1 else { throw .unsupportedVersion }
        var status = 0
        for index in (start + 9)..<(start + 12) {
            guard ASCII.isDigit(bytes[index]) else { throw .invalidStatusLine }
            status = status * 10 + Int(bytes[index] &- 0x30)
        }
        // RFC 9110 §15: the first digit gives the class; 0xx has none.
        guard status >= 100 else { throw .invalidStatusLine }
        var reason = end..<end
        if end > start + 12 {
            guard bytes[start + 12] == ASCII.space else { throw .invalidStatusLine }
            // RFC 9112 §4: reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )
            for index in (start + 13)..<end where !ASCII.isFieldValueByte(bytes[index]) {
                throw .invalidStatusLine
            }
            reason = (start + 13)..<end
        }
        return ParsedStatusLine(version: version, status: status, reason: reason)
    }

    /// RFC 9112 §2.3: `"HTTP/" DIGIT "." DIGIT`, exactly; nil when malformed.
    private static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> HTTPVersion? {
        guard end - start == 8,
            bytes[start] == 0x48, bytes[start + 1] == 0x54, bytes[start + 2] == 0x54, bytes[start + 3] == 0x50,
            bytes[start + 4] == ASCII.slash, ASCII.isDigit(bytes[start + 5]), bytes[start + 6] == ASCII.period,
            ASCII.isDigit(bytes[start + 7])
        else { return nil }
        return HTTPVersion(major: Int(bytes[start + 5] &- 0x30), minor: Int(bytes[start + 7] &- 0x30))
    }
}
