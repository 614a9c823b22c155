public import FaultlineCore

/// Changes to a request before it goes upstream: what a `rewrite` in a request-phase rule does.
/// Nil and empty parts leave the request as the client sent it.
public struct RequestRewrite: MessageRewrite, Sendable, Equatable {
    /// Replaces the method: an RFC 9110 §9 token, never `CONNECT` (its target is an authority,
    /// RFC 9112 §3.2.3, so an origin-form request cannot become one).
    public var method: String?
    /// Replaces the path: origin-form (RFC 9112 §3.2.1), so it starts with `/`, holds only RFC 3986
    /// path characters and `%XX` escapes, and has no `?` or `#`. The query is `query`'s concern.
    public var path: String?
    /// Replaces the whole query, without its `?`; `""` removes the query. Nil keeps the request's.
    public var query: String?
    /// Headers replaced: every field of that name is removed, then this one is added.
    public var setHeaders: [(name: String, value: String)]
    /// Header fields added after the existing ones, repeated names kept.
    public var addHeaders: [(name: String, value: String)]
    /// Names of header fields removed (case-insensitive).
    public var removeHeaders: [String]
    /// Replaces the whole body.
    public var body: [UInt8]?
    /// RFC 6901 pointers set in a JSON body (the body is read whole, up to a limit).
    public var jsonSet: [(pointer: String, value: JSONValue)]

    public init(
        method: String? = nil, path: String? = nil, query: String? = nil,
        setHeaders: [(name: String, value: String)] = [],
        addHeaders: [(name: String, value: String)] = [], removeHeaders: [String] = [], body: [UInt8]? = nil,
        jsonSet: [(pointer: String, value: JSONValue)] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.setHeaders = setHeaders
        self.addHeaders = addHeaders
        self.removeHeaders = removeHeaders
        self.body = body
        self.jsonSet = jsonSet
    }

    /// True when the rewrite needs the whole request body (a JSON edit) before it is forwarded.
    public var needsBody: Bool { !jsonSet.isEmpty }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.query == rhs.query && lhs.hasSameEdits(as: rhs)
    }
}

/// The header and body edits request and response rewrites share, compared one way.
protocol MessageRewrite {
    var setHeaders: [(name: String, value: String)] { get }
    var addHeaders: [(name: String, value: String)] { get }
    var removeHeaders: [String] { get }
    var body: [UInt8]? { get }
    var jsonSet: [(pointer: String, value: JSONValue)] { get }
}

extension MessageRewrite {
    /// Whether `other` edits headers and body the same way (tuples are not Equatable, so their
    /// parts are compared).
    func hasSameEdits(as other: some MessageRewrite) -> Bool {
        removeHeaders == other.removeHeaders && body == other.body
            && setHeaders.map { "\($0.name):\($0.value)" } == other.setHeaders.map { "\($0.name):\($0.value)" }
            && addHeaders.map { "\($0.name):\($0.value)" } == other.addHeaders.map { "\($0.name):\($0.value)" }
            && jsonSet.map(\.pointer) == other.jsonSet.map(\.pointer)
            && jsonSet.map(\.value) == other.jsonSet.map(\.value)
    }
}
