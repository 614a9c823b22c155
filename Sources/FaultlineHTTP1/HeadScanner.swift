/// Finds where a head ends (a start line and field lines, or a trailer section) while its bytes
/// arrive, and enforces the size limits as soon as they are exceeded.
///
/// Theory of operation: the scanner remembers how far it has searched for LF, so feeding a head
/// one byte at a time costs O(n) overall. Offsets are relative to the start of the head (the
/// decoder's read position), which stays put until the whole head is consumed. Every check runs
/// in byte order on the bytes seen so far, so a head split at any point yields the same error as
/// the same head received whole. Lines end with LF, optionally preceded by CR (RFC 9112 §2.2);
/// other CRs are left for the line parsers to reject.
struct HeadScanner: Sendable {
    enum StartLine: Sendable { case request, status, none }

    /// What the scanner looks for and which errors it raises.
    struct Rules: Sendable {
        var startLine: StartLine
        var maxStartLineLength: Int
        var maxSectionLength: Int
        var maxFieldCount: Int

        // The errors follow from the start line, rather than being stored: every decoder holds
        // two sets of rules, and four stored errors (two strings each) made 160 bytes a set, a
        // fifth of an idle HTTP/1 connection's session.
        var startLineTooLong: HTTP1Error {
            switch startLine {
            case .request: .requestLineTooLong
            case .status: .statusLineTooLong
            case .none: .invalidRequestLine  // trailers have no start line
            }
        }

        var invalidStartLine: HTTP1Error {
            switch startLine {
            case .request, .none: .invalidRequestLine
            case .status: .invalidStatusLine
            }
        }

        var sectionTooLarge: HTTP1Error { startLine == .none ? .trailerSectionTooLarge : .headerSectionTooLarge }
        var tooManyFields: HTTP1Error { startLine == .none ? .tooManyTrailerFields : .tooManyHeaderFields }

        static func request(_ limits: HTTP1Limits) -> Rules { head(limits, startLine: .request) }

        static func response(_ limits: HTTP1Limits) -> Rules { head(limits, startLine: .status) }

        /// A message head: requests and responses share the limits and differ in the start line.
        private static func head(_ limits: HTTP1Limits, startLine: StartLine) -> Rules {
            Rules(
                startLine: startLine, maxStartLineLength: limits.maxRequestLineLength,
                maxSectionLength: limits.maxHeaderSectionLength, maxFieldCount: limits.maxHeaderCount)
        }

        static func trailers(_ limits: HTTP1Limits) -> Rules {
            Rules(
                startLine: .none, maxStartLineLength: 0, maxSectionLength: limits.maxTrailerSectionLength,
                maxFieldCount: limits.maxHeaderCount)
        }
    }

    enum Step: Sendable {
        /// The head is not complete yet.
        case needMore
        /// An empty line before the request-line, of this length, to be consumed and ignored (RFC 9112 §2.2).
        case emptyLeadingLine(length: Int)
        /// The start line is complete; its content (without terminator) is at this range.
        case startLine(Range<Int>)
        /// The head is complete and `length` bytes long, final empty line included.
        case complete(length: Int)
    }

    private var scanned = 0
    private var lineStart = 0
    private var sectionLength = 0
    private var prefixChecked = 0
    private var methodEnded = false
    private var startLineDone = false
    /// Where the first field line starts.
    private(set) var fieldsStart = 0
    /// Field lines seen so far.
    private(set) var fieldCount = 0

    /// Scans the bytes not yet scanned; `bytes` starts at the head's first byte.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, rules: Rules) throws(HTTP1Error) -> Step {
        while true {
            let inStartLine = rules.startLine != .none && !startLineDone
            guard let lf = ASCII.firstIndex(of: ASCII.lf, in: bytes, from: scanned, to: bytes.count) else {
                scanned = bytes.count
                // A trailing CR may be the first half of CRLF: it is not counted yet.
                var partialEnd = bytes.count
                if partialEnd > lineStart, bytes[partialEnd - 1] == ASCII.cr { partialEnd -= 1 }
                if inStartLine {
                    try checkStartLinePrefix(bytes, upTo: partialEnd, rules: rules)
                    if partialEnd - lineStart > rules.maxStartLineLength { throw rules.startLineTooLong }
                } else if sectionLength + (partialEnd - lineStart) > rules.maxSectionLength {
                    throw rules.sectionTooLarge
                }
                return .needMore
            }
            scanned = lf + 1
            var contentEnd = lf
            if contentEnd > lineStart, bytes[contentEnd - 1] == ASCII.cr { contentEnd -= 1 }
            if inStartLine {
                // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request-line.
                if contentEnd == lineStart, rules.startLine == .request { return .emptyLeadingLine(length: scanned) }
                try checkStartLinePrefix(bytes, upTo: contentEnd, rules: rules)
                if contentEnd - lineStart > rules.maxStartLineLength { throw rules.startLineTooLong }
                startLineDone = true
                let content = lineStart..<contentEnd
                lineStart = scanned
                fieldsStart = scanned
                return .startLine(content)
            }
            if contentEnd == lineStart { return .complete(length: scanned) }
            sectionLength += scanned - lineStart
            fieldCount += 1
            if sectionLength > rules.maxSectionLength { throw rules.sectionTooLarge }
            if fieldCount > rules.maxFieldCount { throw rules.tooManyFields }
            lineStart = scanned
        }
    }

    /// Rejects a start line early when its first bytes already cannot begin one, e.g. a TLS
    /// ClientHello sent to a plain-text port. Only bytes within the length limit are looked at, so
    /// the outcome does not depend on how the bytes were split.
    private mutating func checkStartLinePrefix(
        _ bytes: UnsafeBufferPointer<UInt8>, upTo end: Int, rules: Rules
    ) throws(HTTP1Error) {
        let limit = min(end, rules.maxStartLineLength)
        switch rules.startLine {
        case .request:
            // RFC 9112 §3: the method is a token followed by a single SP.
            while prefixChecked < limit, !methodEnded {
                let byte = bytes[prefixChecked]
                if byte == ASCII.space {
                    if prefixChecked == 0 { throw rules.invalidStartLine }
                    methodEnded = true
                } else if byte == ASCII.cr {
                    throw .bareCR
                } else if !ASCII.isTokenChar(byte) {
                    throw rules.invalidStartLine
                }
                prefixChecked += 1
            }
        case .status:
            // RFC 9112 §2.3: HTTP-name is the case-sensitive "HTTP/".
            let name: StaticString = "HTTP/"
            while prefixChecked < min(limit, name.utf8CodeUnitCount) {
                if bytes[prefixChecked] != name.utf8Start[prefixChecked] { throw rules.invalidStartLine }
                prefixChecked += 1
            }
        case .none:
            break
        }
    }
}
