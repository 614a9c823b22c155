/// What a rule can look at in one flow. The proxy builds one when a request (and, for the
/// response phase, its response head) is ready for the rules; the engine never mutates it.
public struct FlowView: Sendable {
    /// The request method as sent (case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// `http` or `https`.
    public var scheme: String
    /// The target host name (no port); matched case-insensitively.
    public var host: String
    public var port: Int
    /// The path without the query, as sent (still percent-encoded).
    public var path: String
    /// The raw query without the `?`, still percent-encoded; nil when the target had no `?`.
    public var query: String?
    /// Request header fields in order, as sent.
    public var headers: [(name: String, value: String)]
    /// The request body when the proxy read it; nil when it was not read, and then every body
    /// match fails (rather than guessing).
    public var body: [UInt8]?
    /// The role the auth profile gives the request; `business` without a profile.
    public var role: String
    /// The credential lineage the request's credentials belong to, if any.
    public var lineage: LineageID?
    /// The upstream (or synthetic) response status: response phase only.
    public var status: Int?
    /// Response header fields in order: response phase only.
    public var responseHeaders: [(name: String, value: String)]

    /// Builds a view; `port` defaults to the scheme's (443 for `https`, else 80).
    public init(
        method: String = "GET", scheme: String = "http", host: String = "localhost", port: Int? = nil,
        path: String = "/", query: String? = nil, headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil, role: String = FlowRole.business, lineage: LineageID? = nil, status: Int? = nil,
        responseHeaders: [(name: String, value: String)] = []
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.port = port ?? (scheme.lowercased() == "https" ? 443 : 80)
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.role = role
        self.lineage = lineage
        self.status = status
        self.responseHeaders = responseHeaders
    }

    /// The values of every request header field with this name (compared case-insensitively,
    /// RFC 9110 §5.1), in order.
    public func headerValues(_ name: String) -> [String] {
        Self.values(named: name, in: headers)
    }

    /// The values of every response header field with this name, in order.
    public func responseHeaderValues(_ name: String) -> [String] {
        Self.values(named: name, in: responseHeaders)
    }

    static func values(named name: String, in fields: [(name: String, value: String)]) -> [String] {
        fields.compactMap { ASCIICase.equal($0.name, name) ? $0.value : nil }
    }
}

/// ASCII-only case folding: header names, schemes and host names are ASCII (RFC 9110 §5.1,
/// RFC 3986 §3.1, §3.2.2), and folding other scripts would make two different names equal.
enum ASCIICase {
    static func lowered(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { x, y in
                x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
            }
    }

    static func hasPrefix(_ text: Substring, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count && equal(String(text.prefix(prefix.count)), prefix)
    }
}

extension FlowView: Equatable {
    /// Field by field; header lists pair by pair (tuples have no `==` of their own).
    public static func == (lhs: FlowView, rhs: FlowView) -> Bool {
        lhs.method == rhs.method && lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port
            && lhs.path == rhs.path && lhs.query == rhs.query && lhs.body == rhs.body && lhs.role == rhs.role
            && lhs.lineage == rhs.lineage && lhs.status == rhs.status
            && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 }
            && lhs.responseHeaders.elementsEqual(rhs.responseHeaders) { $0 == $1 }
    }
}
