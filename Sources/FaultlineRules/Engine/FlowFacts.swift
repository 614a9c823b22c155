import FaultlineCore

/// A flow plus what matchers derive from it (header index, query, cookies, form, JSON),
/// computed at most once per evaluation and only when a rule asks.
struct FlowFacts {
    let flow: FlowView
    /// The host as a host glob compares it: lowercase, one trailing dot dropped.
    private var loweredHost: String?
    private var queryParameters: [String: [String]]?
    private var cookieValues: [String: [String]]?
    private var formFields: [String: [String]]?
    /// nil: not parsed yet; .some(nil): the body is absent or not JSON.
    private var json: JSONValue??

    init(_ flow: FlowView) {
        self.flow = flow
    }

    /// Values of a request header; `lowercasedName` must already be lowercase. A scan, not an
    /// index: a request has a handful of fields and a rule asks for one or two, so building a
    /// dictionary of lowercased names cost more than it saved (measured), and so did lowercasing
    /// every name once per evaluation (its allocations: 10% more instructions on the benchmark's
    /// rules).
    func header(_ lowercasedName: String) -> [String] {
        Self.values(of: lowercasedName, in: flow.headers)
    }

    func responseHeader(_ lowercasedName: String) -> [String] {
        Self.values(of: lowercasedName, in: flow.responseHeaders)
    }

    private static func values(of lowercasedName: String, in fields: [(name: String, value: String)]) -> [String] {
        var values: [String] = []
        for field in fields where ASCIICase.equal(field.name, lowercasedName) { values.append(field.value) }
        return values
    }

    /// The host in the form an all-literal host glob is stored in (`GlobMatcher.literal`):
    /// ASCII-lowercased, an absolute name's one trailing dot dropped (RFC 1034 §3.1).
    mutating func hostKey() -> String {
        if let loweredHost { return loweredHost }
        var host = ASCIICase.lowered(flow.host)
        if host.utf8.count > 1, host.utf8.last == UInt8(ascii: ".") { host.removeLast() }
        loweredHost = host
        return host
    }

    mutating func query(_ name: String) -> [String] {
        if queryParameters == nil { queryParameters = flow.query.map(FormParsing.queryParameters) ?? [:] }
        return queryParameters?[name] ?? []
    }

    mutating func cookie(_ name: String) -> [String] {
        if cookieValues == nil { cookieValues = CookieParsing.requestCookies(header("cookie")) }
        return cookieValues?[name] ?? []
    }

    /// Form fields of the body; call only when the body was read.
    mutating func formField(_ name: String) -> [String] {
        if formFields == nil { formFields = flow.body.map(FormParsing.formFields) ?? [:] }
        return formFields?[name] ?? []
    }

    /// The body as JSON; nil when it was not read or is not JSON.
    mutating func bodyJSON() -> JSONValue? {
        if json == nil { json = .some(flow.body.flatMap(JSONValue.parse)) }
        return json ?? nil
    }
}
