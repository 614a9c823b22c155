import FaultlineCore
import FaultlineHTTP1

/// One decoded control API call: what the routes look at.
struct ControlRequest: Sendable {
    let method: String
    /// The path split at `/`, each segment percent-decoded (`/v1/holds/a%20b` → `["v1", "holds", "a b"]`).
    let path: [String]
    /// The raw path, for messages.
    let rawPath: String
    /// Query parameters, percent-decoded; the last value wins.
    let query: [String: String]
    let headers: HTTPHeaders
    let body: [UInt8]

    /// Splits an origin-form target (RFC 9112 §3.2.1); nil when it is not one or its percent
    /// escapes are broken.
    init?(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        guard target.hasPrefix("/") else { return nil }
        let pathPart: Substring
        let queryPart: Substring?
        if let mark = target.firstIndex(of: "?") {
            pathPart = target[..<mark]
            queryPart = target[target.index(after: mark)...]
        } else {
            pathPart = target[...]
            queryPart = nil
        }
        var segments: [String] = []
        for segment in pathPart.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = Self.percentDecoded(segment, plusIsSpace: false) else { return nil }
            segments.append(decoded)
        }
        var query: [String: String] = [:]
        for pair in queryPart?.split(separator: "&") ?? [] {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.percentDecoded(parts[0], plusIsSpace: true),
                let value = Self.percentDecoded(parts.count > 1 ? parts[1] : "", plusIsSpace: true)
            else { return nil }
            query[name] = value
        }
        self.method = method
        self.path = segments
        self.rawPath = String(pathPart)
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// RFC 3986 §2.1 percent-decoding to UTF-8; nil for a broken escape or invalid UTF-8.
    /// `+` means space only in query strings (the HTML form convention).
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HexDigit.value),
                    let low = iterator.next().flatMap(HexDigit.value)
                else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
