import FaultlineCore

/// The methods whose request-target form is special (RFC 9112 §3.2.3, §3.2.4). Methods are
/// case-sensitive (RFC 9110 §9.1), so `connect` is an ordinary method.
enum MethodKind: Sendable {
    case connect, options, head, other

    init(_ method: String) {
        switch method {
        case "CONNECT": self = .connect
        case "OPTIONS": self = .options
        case "HEAD": self = .head
        default: self = .other
        }
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        switch end - start {
        case 4 where Self.matches(bytes, start, "HEAD"): self = .head
        case 7 where Self.matches(bytes, start, "CONNECT"): self = .connect
        case 7 where Self.matches(bytes, start, "OPTIONS"): self = .options
        default: self = .other
        }
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ word: StaticString) -> Bool {
        let letters = word.utf8Start
        for index in 0..<word.utf8CodeUnitCount where bytes[start + index] != letters[index] { return false }
        return true
    }
}

/// Byte ranges of a parsed request-target, found before any String is built, so the decoder can
/// validate every target cheaply.
struct ParsedTarget {
    enum Form { case origin, absolute, authority, asterisk }
    var form: Form
    var scheme: Range<Int> = 0..<0
    var host: Range<Int> = 0..<0
    var port: Int?
    var path: Range<Int> = 0..<0
    var query: Range<Int>?
}

/// The request-target grammar of RFC 9112 §3.2 over raw bytes.
///
/// Paths and queries are checked leniently (visible ASCII, no fragment) because real clients send
/// characters RFC 3986 wants percent-encoded; authorities are checked strictly since proxies route on them.
package enum TargetParser {
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, method: MethodKind
    ) throws(HTTP1Error) -> ParsedTarget {
        guard start < end else { throw .invalidRequestTarget }
        for index in start..<end where !ASCII.isVisible(bytes[index]) { throw .invalidRequestTarget }

        if method == .connect {
            // RFC 9112 §3.2.3: CONNECT takes only `uri-host ":" port`.
            if let authority = parseAuthority(bytes, start, end, portRequired: true) {
                return ParsedTarget(form: .authority, host: authority.host, port: authority.port)
            }
            if bytes[start] == ASCII.slash || bytes[start] == ASCII.asterisk
                || (try? parseAbsolute(bytes, start, end)) != nil
            {
                throw .requestTargetFormMismatch
            }
            throw .invalidRequestTarget
        }
        if end - start == 1, bytes[start] == ASCII.asterisk {
            // RFC 9112 §3.2.4: the asterisk-form is only for a server-wide OPTIONS.
            guard method == .options else { throw .requestTargetFormMismatch }
            return ParsedTarget(form: .asterisk)
        }
        if bytes[start] == ASCII.slash {
            return try parseOrigin(bytes, start, end)
        }
        if let absolute = try? parseAbsolute(bytes, start, end) { return absolute }
        if parseAuthority(bytes, start, end, portRequired: true) != nil { throw .requestTargetFormMismatch }
        throw .invalidRequestTarget
    }

    /// RFC 9112 §3.2.1: `absolute-path [ "?" query ]`, no fragment.
    private static func parseOrigin(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws(HTTP1Error) -> ParsedTarget {
        var target = ParsedTarget(form: .origin)
        try readPathAndQuery(bytes, start, end, into: &target)
        return target
    }

    /// `path [ "?" query ]` from `start` to `end` into `target`; a fragment is refused (RFC 9112
    /// §3.2: a request target carries none).
    private static func readPathAndQuery(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, into target: inout ParsedTarget
    ) throws(HTTP1Error) {
        if ASCII.firstIndex(of: ASCII.hash, in: bytes, from: start, to: end) != nil { throw .invalidRequestTarget }
        if let question = ASCII.firstIndex(of: ASCII.question, in: bytes, from: start, to: end) {
            target.path = start..<question
            target.query = (question + 1)..<end
        } else {
            target.path = start..<end
        }
    }

    /// RFC 9112 §3.2.2: `absolute-URI`, here required to carry an authority (`scheme "://" authority`),
    /// since a proxy can only forward to a named host.
    private static func parseAbsolute(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws(HTTP1Error) -> ParsedTarget {
        // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        guard ASCII.isAlpha(bytes[start]) else { throw .invalidRequestTarget }
        var index = start + 1
        while index < end {
            let byte = bytes[index]
            guard ASCII.isAlpha(byte) || ASCII.isDigit(byte) || byte == 0x2B || byte == 0x2D || byte == ASCII.period
            else { break }
            index += 1
        }
        guard end - index >= 3, bytes[index] == ASCII.colon, bytes[index + 1] == ASCII.slash,
            bytes[index + 2] == ASCII.slash
        else { throw .invalidRequestTarget }
        var target = ParsedTarget(form: .absolute, scheme: start..<index)
        let authorityStart = index + 3
        var authorityEnd = authorityStart
        while authorityEnd < end, bytes[authorityEnd] != ASCII.slash, bytes[authorityEnd] != ASCII.question {
            authorityEnd += 1
        }
        guard let authority = parseAuthority(bytes, authorityStart, authorityEnd, portRequired: false) else {
            throw .invalidRequestTarget
        }
        target.host = authority.host
        target.port = authority.port
        try readPathAndQuery(bytes, authorityEnd, end, into: &target)
        return target
    }

    /// RFC 3986 §3.2.2–3.2.3: `host [ ":" port ]` with host = IP-literal / IPv4address / reg-name.
    /// Returns the host range (without brackets) and the port; nil when invalid.
    static func parseAuthority(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, portRequired: Bool
    ) -> (host: Range<Int>, port: Int?)? {
        guard start < end else { return nil }
        let host: Range<Int>
        var index: Int
        if bytes[start] == ASCII.leftBracket {
            guard let close = ASCII.firstIndex(of: ASCII.rightBracket, in: bytes, from: start, to: end),
                isIPLiteralBody(bytes, start + 1, close)
            else { return nil }
            host = (start + 1)..<close
            index = close + 1
        } else {
            index = start
            while index < end, bytes[index] != ASCII.colon {
                guard isRegNameByte(bytes[index]) else { return nil }
                index += 1
            }
            guard index > start, hasValidPercentEncoding(bytes, start, index) else { return nil }
            host = start..<index
        }
        if index == end { return portRequired ? nil : (host, nil) }
        guard bytes[index] == ASCII.colon else { return nil }
        index += 1
        // RFC 3986 allows an empty port; it means "no port".
        if index == end { return portRequired ? nil : (host, nil) }
        guard end - index <= 5 else { return nil }
        var port = 0
        while index < end {
            guard ASCII.isDigit(bytes[index]) else { return nil }
            port = port * 10 + Int(bytes[index] &- 0x30)
            index += 1
        }
        guard port <= 65535 else { return nil }
        return (host, port)
    }

    /// Whether `path` is an RFC 3986 §3.3 path: `pchar` (unreserved, sub-delims, ':', '@') and
    /// '/', with well-formed `%XX` escapes. Stricter than request paths are checked (see above):
    /// for text the proxy itself puts into request lines, such as an upstream's path prefix.
    package static func isStrictPath(_ path: some StringProtocol) -> Bool { URISyntax.isStrictPath(path) }

    /// unreserved / pct-encoded / sub-delims (RFC 3986 §3.2.2); '%' is checked separately.
    @inline(__always)
    private static func isRegNameByte(_ byte: UInt8) -> Bool { URISyntax.isRegNameByte(byte) }

    /// `URISyntax.hasValidPercentEncoding` for the bytes of a request line, with memchr: it runs
    /// for every authority the codec reads.
    private static func hasValidPercentEncoding(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var index = start
        while let percent = ASCII.firstIndex(of: ASCII.percent, in: bytes, from: index, to: end) {
            guard percent + 2 < end, HexDigit.value(bytes[percent + 1]) != nil,
                HexDigit.value(bytes[percent + 2]) != nil
            else { return false }
            index = percent + 3
        }
        return true
    }

    /// An IPv6 address (with an optional RFC 6874 zone) between brackets: hex digits, ':' and '.',
    /// then after '%' unreserved characters; at least one ':'.
    private static func isIPLiteralBody(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard start < end else { return false }
        var sawColon = false
        var inZone = false
        for index in start..<end {
            let byte = bytes[index]
            if inZone {
                guard
                    ASCII.isAlpha(byte) || ASCII.isDigit(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F
                        || byte == 0x7E || byte == ASCII.percent
                else { return false }
            } else if byte == ASCII.colon {
                sawColon = true
            } else if byte == ASCII.percent {
                inZone = true
            } else if HexDigit.value(byte) == nil, byte != ASCII.period {
                return false
            }
        }
        return sawColon
    }
}
