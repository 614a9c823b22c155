public import FaultlineHTTP1

/// Translating heads between HTTP/1.1 (`HTTPHeaders`) and HTTP/2 header blocks
/// (`[HTTP2Header]`): the request's control data in pseudo-headers (RFC 9113 §8.3.1), the
/// response's `:status` (§8.3.2), the connection-specific fields HTTP/2 forbids (§8.2.2) and
/// the cookie crumbs it allows (§8.2.3). Pure functions.
public enum HTTP2Headers {
    /// A request's control data and its regular fields.
    public struct Request: Sendable, Equatable {
        /// `:method`.
        public var method: String
        /// `:scheme`, e.g. "https"; nil only for CONNECT (§8.5).
        public var scheme: String?
        /// `:authority` (host and optional port, no userinfo); nil when the target has none.
        public var authority: String?
        /// `:path`: path and query, "*" for a server-wide OPTIONS; nil only for CONNECT.
        public var path: String?
        /// `:protocol` of an extended CONNECT (RFC 8441 §4), e.g. "websocket"; nil otherwise.
        public var `protocol`: String?
        /// The regular fields, in order (no pseudo-headers).
        public var fields: [HTTP2Header]

        public init(
            method: String, scheme: String?, authority: String?, path: String?, protocol: String? = nil,
            fields: [HTTP2Header] = []
        ) {
            self.method = method
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.protocol = `protocol`
            self.fields = fields
        }
    }

    /// A response's status and its regular fields.
    public struct Response: Sendable, Equatable {
        /// `:status`, 100…599.
        public var status: Int
        /// The regular fields, in order (no pseudo-headers).
        public var fields: [HTTP2Header]

        public init(status: Int, fields: [HTTP2Header] = []) {
            self.status = status
            self.fields = fields
        }
    }

    // MARK: Received blocks

    /// Splits a received request block into control data and fields, checking §8.3.1: each of
    /// `:method`, `:scheme`, `:path` exactly once (`:path` not empty), `:authority` at most once,
    /// pseudo-headers before fields and no others; CONNECT has `:authority` and neither
    /// `:scheme` nor `:path` (§8.5), unless it is an extended CONNECT: `:protocol` with all four
    /// (RFC 8441 §4). nghttp2 checks the same on what it receives; this is for
    /// blocks from elsewhere and for tests. Throws `malformed-request-head`.
    public static func request(_ headers: [HTTP2Header]) throws(HTTP2Error) -> Request {
        func malformed(_ message: String) -> HTTP2Error {
            HTTP2Error(code: HTTP2Error.malformedRequestHead, message: message)
        }
        var method: String?
        var scheme: String?
        var authority: String?
        var path: String?
        var `protocol`: String?
        var fields: [HTTP2Header] = []
        for header in headers {
            guard header.isPseudoHeader else {
                fields.append(header)
                continue
            }
            guard fields.isEmpty else { throw malformed("\(header.name) follows a regular field (RFC 9113 §8.3).") }
            switch header.name {
            case ":method" where method == nil: method = header.value
            case ":scheme" where scheme == nil: scheme = header.value
            case ":authority" where authority == nil: authority = header.value
            case ":path" where path == nil: path = header.value
            case ":protocol" where `protocol` == nil: `protocol` = header.value
            case ":method", ":scheme", ":authority", ":path", ":protocol":
                throw malformed("\(header.name) appears twice (RFC 9113 §8.3.1).")
            default:
                throw malformed("\(header.name) is not a request pseudo-header (RFC 9113 §8.3).")
            }
        }
        guard let method, !method.isEmpty else { throw malformed(":method is missing (RFC 9113 §8.3.1).") }
        if let `protocol` {
            guard method == "CONNECT", authority != nil, scheme != nil, let path, !path.isEmpty, !`protocol`.isEmpty
            else {
                throw malformed(":protocol goes with CONNECT and :scheme, :path and :authority (RFC 8441 §4).")
            }
        } else if method == "CONNECT" {
            guard authority != nil, scheme == nil, path == nil else {
                throw malformed("CONNECT carries :authority and neither :scheme nor :path (RFC 9113 §8.5).")
            }
        } else {
            guard scheme != nil else { throw malformed(":scheme is missing (RFC 9113 §8.3.1).") }
            guard let path, !path.isEmpty else { throw malformed(":path is missing or empty (RFC 9113 §8.3.1).") }
        }
        return Request(
            method: method, scheme: scheme, authority: authority, path: path, protocol: `protocol`, fields: fields)
    }

    /// Splits a received response block: `:status` (three digits, the only pseudo-header,
    /// §8.3.2) and the fields. Throws `malformed-response-head`.
    public static func response(_ headers: [HTTP2Header]) throws(HTTP2Error) -> Response {
        func malformed(_ message: String) -> HTTP2Error {
            HTTP2Error(code: HTTP2Error.malformedResponseHead, message: message)
        }
        var status: Int?
        var fields: [HTTP2Header] = []
        for header in headers {
            guard header.isPseudoHeader else {
                fields.append(header)
                continue
            }
            guard header.name == ":status", status == nil, fields.isEmpty else {
                throw malformed("\(header.name) is misplaced or not a response pseudo-header (RFC 9113 §8.3.2).")
            }
            guard let value = statusValue(header.value) else {
                throw malformed(":status \"\(header.value)\" is not a three-digit status code (RFC 9113 §8.3.2).")
            }
            status = value
        }
        guard let status else { throw malformed(":status is missing (RFC 9113 §8.3.2).") }
        return Response(status: status, fields: fields)
    }

    /// The `:status` of a response block (the first one; three digits), or nil.
    public static func status(_ headers: [HTTP2Header]) -> Int? {
        headers.first { $0.name == ":status" }.flatMap { statusValue($0.value) }
    }

    private static func statusValue(_ text: String) -> Int? {
        guard text.utf8.count == 3, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int(text), value >= 100
        else { return nil }
        return value
    }

    // MARK: HTTP/1 → HTTP/2

    /// The header block of `request`: `:method`, `:scheme`, `:authority`, `:path` (those that
    /// are set, in that order, §8.3.1), then its fields as given. Build `fields` with
    /// ``fields(fromHTTP1:)`` to translate an HTTP/1 head.
    public static func requestBlock(_ request: Request) -> [HTTP2Header] {
        var block: [HTTP2Header] = [HTTP2Header(":method", request.method)]
        if let `protocol` = request.protocol { block.append(HTTP2Header(":protocol", `protocol`)) }
        if let scheme = request.scheme { block.append(HTTP2Header(":scheme", scheme)) }
        if let authority = request.authority { block.append(HTTP2Header(":authority", authority)) }
        if let path = request.path { block.append(HTTP2Header(":path", path)) }
        return block + request.fields
    }

    /// The header block of a response: `:status` first (§8.3.2), then `fields` translated with
    /// ``fields(fromHTTP1:)``.
    public static func responseBlock(status: Int, fields: HTTPHeaders) -> [HTTP2Header] {
        var block = [HTTP2Header(":status", String(status))]
        block.reserveCapacity(fields.count + 1)
        append(fromHTTP1: fields, to: &block)
        return block
    }

    /// HTTP/1 fields as HTTP/2 fields: names lowercased (§8.2.1); the connection-specific fields
    /// removed (§8.2.2: Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade,
    /// HTTP2-Settings, and every field the Connection field names, RFC 9110 §7.6.1); TE kept only
    /// as "trailers" when it lists trailers; Host removed (a request carries it as `:authority`,
    /// §8.3.1: take it from ``authority(fromHTTP1:)``). Credentials and cookies are marked
    /// ``HTTP2Header/neverIndexed`` (RFC 7541 §7.1.3).
    public static func fields(fromHTTP1 fields: HTTPHeaders) -> [HTTP2Header] {
        var result: [HTTP2Header] = []
        append(fromHTTP1: fields, to: &result)
        return result
    }

    /// Appends ``fields(fromHTTP1:)`` of `fields` to `block`. Runs for every response, so a name
    /// is told apart by its length and at most two comparisons rather than hashed into sets.
    private static func append(fromHTTP1 fields: HTTPHeaders, to block: inout [HTTP2Header]) {
        let nominated = Set(fields.tokens(inField: "connection"))
        var teTrailers = false
        for field in fields {
            let name = lowercased(field.name)
            if name == "te" {
                teTrailers =
                    teTrailers || HTTPHeaders([(field.name, field.value)]).containsToken("trailers", inField: "te")
                continue
            }
            guard !isConnectionSpecific(lowercased: name), nominated.isEmpty || !nominated.contains(name),
                name != "host"
            else { continue }
            block.append(HTTP2Header(name, field.value, neverIndexed: isSensitive(lowercased: name)))
        }
        if teTrailers { block.append(HTTP2Header("te", "trailers")) }
    }

    /// The `:authority` for an HTTP/1 request whose target had no authority (origin-form): its
    /// Host field (RFC 9113 §8.3.1), or nil.
    public static func authority(fromHTTP1 fields: HTTPHeaders) -> String? {
        fields.first(name: "host").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `name` (any case) is a connection-specific field HTTP/2 forbids (§8.2.2). TE is
    /// not one of them when its value is exactly "trailers".
    public static func isConnectionSpecific(name: String, value: String = "") -> Bool {
        let name = lowercased(name)
        if name == "te" { return value != "trailers" }
        return isConnectionSpecific(lowercased: name)
    }

    // MARK: HTTP/2 → HTTP/1

    /// HTTP/2 fields as HTTP/1 fields: pseudo-headers dropped, the `cookie` crumbs of §8.2.3
    /// joined with "; " into one field where the first crumb was, the rest in order. For a
    /// request, put Host first from `:authority` with ``http1Fields(of:)``.
    public static func http1Fields(_ fields: [HTTP2Header]) -> HTTPHeaders {
        var result = HTTPHeaders()
        var cookieIndex: Int?
        var crumbs: [String] = []
        for field in fields where !field.isPseudoHeader {
            if field.name == "cookie" {
                if cookieIndex == nil {
                    cookieIndex = result.count
                    result.add(name: "cookie", value: "")
                }
                crumbs.append(field.value)
            } else {
                result.add(name: field.name, value: field.value)
            }
        }
        guard let cookieIndex else { return result }
        var joined = HTTPHeaders()
        for (index, field) in result.enumerated() {
            if index == cookieIndex {
                joined.add(name: "cookie", value: crumbs.joined(separator: "; "))
            } else {
                joined.append(field)
            }
        }
        return joined
    }

    /// A request's fields for HTTP/1.1: Host first, set from `:authority` (an intermediary MUST
    /// use it and replace any Host field, RFC 9113 §8.3.1), or the Host field when there is no
    /// `:authority`; then the other fields as ``http1Fields(_:)`` translates them.
    public static func http1Fields(of request: Request) -> HTTPHeaders {
        let translated = http1Fields(request.fields)
        var result = HTTPHeaders()
        if let host = request.authority ?? translated.first(name: "host") { result.add(name: "host", value: host) }
        for field in translated where !field.hasName("host") { result.append(field) }
        return result
    }

    // MARK: Tables

    /// §8.2.2, plus HTTP2-Settings (connection-specific by RFC 7540 §3.2.1).
    static func isConnectionSpecific(lowercased name: String) -> Bool {
        switch name.utf8.count {
        case 7: name == "upgrade"
        case 10: name == "connection" || name == "keep-alive"
        case 14: name == "http2-settings"
        case 16: name == "proxy-connection"
        case 17: name == "transfer-encoding"
        default: false
        }
    }

    /// Fields sent never-indexed: credentials and cookies (RFC 7541 §7.1.3).
    static func isSensitive(lowercased name: String) -> Bool {
        switch name.utf8.count {
        case 6: name == "cookie"
        case 10: name == "set-cookie"
        case 13: name == "authorization"
        case 19: name == "proxy-authorization"
        default: false
        }
    }

    /// ASCII lowercase (field names are tokens, RFC 9110 §5.1).
    static func lowercased(_ name: String) -> String {
        func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        var name = name
        let lowered = name.withUTF8 { bytes -> String? in
            guard bytes.contains(where: isUpper) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in bytes.indices { buffer[index] = isUpper(bytes[index]) ? bytes[index] + 32 : bytes[index] }
                return bytes.count
            }
        }
        return lowered ?? name
    }
}
