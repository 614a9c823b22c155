public import FaultlineCore

/// What a flow must look like for a rule (or an auth-profile role) to apply. Every field that is
/// set must match; an empty `FlowMatch` matches every flow.
public struct FlowMatch: Sendable, Equatable {
    public var methods: [String]?
    public var scheme: String?
    public var host: Glob?
    public var port: Int?
    public var path: Glob?
    public var pathRegex: RegexPattern?
    public var query: [String: ValueMatch]
    public var headers: [String: ValueMatch]
    public var cookies: [String: ValueMatch]
    public var body: BodyMatch?
    public var role: String?
    /// Response phase only.
    public var status: StatusMatch?
    /// Response phase only.
    public var responseHeaders: [String: ValueMatch]

    public init(
        methods: [String]? = nil, scheme: String? = nil, host: Glob? = nil, port: Int? = nil, path: Glob? = nil,
        pathRegex: RegexPattern? = nil, query: [String: ValueMatch] = [:], headers: [String: ValueMatch] = [:],
        cookies: [String: ValueMatch] = [:], body: BodyMatch? = nil, role: String? = nil, status: StatusMatch? = nil,
        responseHeaders: [String: ValueMatch] = [:]
    ) {
        self.methods = methods
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.pathRegex = pathRegex
        self.query = query
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.role = role
        self.status = status
        self.responseHeaders = responseHeaders
    }

    /// True when the match needs the response (status or response headers).
    public var needsResponse: Bool { status != nil || !responseHeaders.isEmpty }
}

/// A test on one string value (a header, query parameter, cookie, form field).
public enum ValueMatch: Sendable, Equatable {
    case equals(String)
    case exists(Bool)
    case regex(RegexPattern)
    case contains(String)
}

/// A test on a JSON value at a pointer in a request body.
public enum JSONValueMatch: Sendable, Equatable {
    /// Equal to this JSON value (compared as parsed JSON, so `1` equals `1.0`).
    case equals(JSONValue)
    case exists(Bool)
}

/// Tests on the request body. The body is read (up to a limit) before the rule decides.
public struct BodyMatch: Sendable, Equatable {
    /// RFC 6901 JSON pointers to tests.
    public var json: [String: JSONValueMatch]
    /// `application/x-www-form-urlencoded` fields to tests.
    public var form: [String: ValueMatch]
    public var contains: String?

    public init(json: [String: JSONValueMatch] = [:], form: [String: ValueMatch] = [:], contains: String? = nil) {
        self.json = json
        self.form = form
        self.contains = contains
    }
}

/// A response status test: one code, several, or a class such as `5xx`.
public enum StatusMatch: Sendable, Equatable {
    case codes([Int])
    /// 1...5 for `1xx`...`5xx`.
    case statusClass(Int)
}

/// A validated shell-style glob: `*` within one path segment (or one host label), `**` across
/// segments, `?` one character.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    public init(_ pattern: String) { self.pattern = pattern }
    public var description: String { pattern }
}

/// A regular expression that compiled when the rules were loaded.
public struct RegexPattern: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    public init(_ pattern: String) { self.pattern = pattern }
    public var description: String { pattern }
}
