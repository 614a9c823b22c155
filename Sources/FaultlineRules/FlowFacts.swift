/// A flow plus what matchers derive from it (header index, query, cookies, form, JSON),
/// computed at most once per evaluation and only when a rule asks.
struct FlowFacts {
    let flow: FlowView
    private var headerIndex: [String: [String]]?
    private var responseHeaderIndex: [String: [String]]?
    private var queryParameters: [String: [String]]?
    private var cookieValues: [String: [String]]?
    private var formFields: [String: [String]]?
    /// nil: not parsed yet; .some(nil): the body is absent or not JSON.
    private var json: BodyJSON??

    init(_ flow: FlowView) {
        self.flow = flow
    }

    /// Values of a request header; `lowercasedName` must already be lowercase.
    mutating func header(_ lowercasedName: String) -> [String] {
        if headerIndex == nil { headerIndex = Self.index(flow.headers) }
        return headerIndex?[lowercasedName] ?? []
    }

    mutating func responseHeader(_ lowercasedName: String) -> [String] {
        if responseHeaderIndex == nil { responseHeaderIndex = Self.index(flow.responseHeaders) }
        return responseHeaderIndex?[lowercasedName] ?? []
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
    mutating func bodyJSON() -> BodyJSON? {
        if json == nil { json = .some(flow.body.flatMap(BodyJSON.parse)) }
        return json ?? nil
    }

    private static func index(_ fields: [(name: String, value: String)]) -> [String: [String]] {
        var index: [String: [String]] = [:]
        for field in fields { index[ASCIICase.lowered(field.name), default: []].append(field.value) }
        return index
    }
}
