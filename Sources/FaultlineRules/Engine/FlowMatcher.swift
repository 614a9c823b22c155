import FaultlineCore

/// A compiled `FlowMatch`: every set field must match (README "match").
///
/// Field by field:
/// - `method`: exact, case-sensitive (RFC 9110 §9.1); `scheme`: ASCII case-insensitive;
/// - `host`, `path`: globs (see `GlobMatcher`); the path is matched as sent, percent-encoded;
/// - `pathRegex` and every `regex` test: search semantics (see `CompiledRegex`);
/// - `query`: percent-decoded names and values, `+` kept literal (see `FormParsing`);
/// - `headers`, `responseHeaders`: names case-insensitive, values exact for `equals`;
/// - `cookies`: from every `Cookie` field (see `CookieParsing`);
/// - `body`: fails whenever the body was not read; `form` decodes `+` as space; `json`
///   pointers need a body that parses as JSON (otherwise every `json` test fails, including
///   `exists: false`); `contains` looks for the UTF-8 bytes of the text;
/// - `role`: exact; `status`: a code list or a class; both fail without a response.
///
/// A class so the engine's loop borrows it instead of copying a dozen stored references per
/// rule per flow (measured: copies were a third of the time).
final class FlowMatcher {
    let methods: [String]?
    private let scheme: String?
    private let host: GlobMatcher?
    private let port: Int?
    private let path: GlobMatcher?
    private let pathRegex: CompiledRegex?
    private let query: [(name: String, test: ValueMatcher)]
    private let headers: [(name: String, test: ValueMatcher)]
    private let cookies: [(name: String, test: ValueMatcher)]
    private let body: BodyMatcher?
    private let role: String?
    private let status: StatusMatch?
    private let responseHeaders: [(name: String, test: ValueMatcher)]

    /// The host every matching flow has (lowercased), when the host glob has no wildcard.
    var literalHost: String? { host?.literal }

    /// The first path segment every matching flow has, when the path glob starts literally.
    var literalFirstSegment: String? { path?.literalFirstSegment }

    /// Whether this matcher reads the request body.
    var readsBody: Bool { body != nil }

    init(_ match: FlowMatch) {
        methods = match.methods
        scheme = match.scheme.map(ASCIICase.lowered)
        host = match.host.map { GlobMatcher($0, mode: .host) }
        port = match.port
        path = match.path.map { GlobMatcher($0, mode: .path) }
        pathRegex = match.pathRegex.map(CompiledRegex.init)
        query = Self.compile(match.query, lowercasingNames: false)
        headers = Self.compile(match.headers, lowercasingNames: true)
        cookies = Self.compile(match.cookies, lowercasingNames: false)
        body = match.body.map(BodyMatcher.init)
        role = match.role
        status = match.status
        responseHeaders = Self.compile(match.responseHeaders, lowercasingNames: true)
    }

    /// Sorted by name so evaluation order (and so cost) does not depend on dictionary order.
    private static func compile(
        _ tests: [String: ValueMatch], lowercasingNames: Bool
    ) -> [(name: String, test: ValueMatcher)] {
        tests.sorted { $0.key < $1.key }.map {
            (lowercasingNames ? ASCIICase.lowered($0.key) : $0.key, ValueMatcher($0.value))
        }
    }

    /// True when the flow satisfies every set field. `ignoringRole` serves the auth profile,
    /// whose matches decide the role and so cannot test it.
    func matches(_ facts: inout FlowFacts, ignoringRole: Bool = false) -> Bool {
        if let methods, !methods.contains(facts.flow.method) { return false }
        if let scheme, !ASCIICase.equal(facts.flow.scheme, scheme) { return false }
        if let port, facts.flow.port != port { return false }
        if !ignoringRole, let role, facts.flow.role != role { return false }
        if let status {
            guard let actual = facts.flow.status, status.matches(actual) else { return false }
        }
        if let host, !host.matches(facts.flow.host) { return false }
        if let path, !path.matches(facts.flow.path) { return false }
        if let pathRegex, !pathRegex.matches(facts.flow.path) { return false }
        for (name, test) in headers where !test.matches(facts.header(name), joinedForHeaders: true) { return false }
        for (name, test) in query where !test.matches(facts.query(name)) { return false }
        for (name, test) in cookies where !test.matches(facts.cookie(name)) { return false }
        for (name, test) in responseHeaders where !test.matches(facts.responseHeader(name), joinedForHeaders: true) {
            return false
        }
        if let body, !body.matches(&facts) { return false }
        return true
    }
}

/// A compiled `BodyMatch`.
final class BodyMatcher {
    private let json: [(pointer: String, test: JSONValueMatch)]
    private let form: [(name: String, test: ValueMatcher)]
    private let contains: [UInt8]?

    init(_ match: BodyMatch) {
        json = match.json.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        form = match.form.sorted { $0.key < $1.key }.map { ($0.key, ValueMatcher($0.value)) }
        contains = match.contains.map { Array($0.utf8) }
    }

    func matches(_ facts: inout FlowFacts) -> Bool {
        guard let body = facts.flow.body else { return false }
        if let contains, !Self.bytes(body, contain: contains) { return false }
        for (name, test) in form where !test.matches(facts.formField(name)) { return false }
        if !json.isEmpty {
            guard let document = facts.bodyJSON() else { return false }
            for (pointer, test) in json {
                let found = document.value(at: pointer)
                switch test {
                case .exists(let expected): if (found != nil) != expected { return false }
                case .equals(let expected): if found != expected { return false }
                }
            }
        }
        return true
    }

    static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first, haystack[start..<start + needle.count].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}
