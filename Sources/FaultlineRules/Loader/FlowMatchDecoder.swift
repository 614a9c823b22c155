import FaultlineConfig

/// Decodes a `match` object (a rule's, or one of the auth profile's roles) into a `FlowMatch`,
/// recording every problem in the shared diagnostics and leaving broken fields unset.
struct FlowMatchDecoder {
    /// Where the match object is used; the profile classifies requests, so it cannot use
    /// `role` or the response-phase keys.
    enum Use {
        case rule
        case profile
    }

    static let ruleKeys = [
        "method", "scheme", "host", "port", "path", "pathRegex", "query", "headers", "cookies", "body", "role",
        "status", "responseHeaders",
    ]
    /// Keys that only mean something once the response has arrived.
    static let responseKeys = ["status", "responseHeaders"]

    let diagnostics: LoaderDiagnostics
    let profile: ProfileKnowledge
    let use: Use

    /// The match described by `node`; `name` is how the object reads in a type error
    /// (`'match'`) and `context` how it reads in messages about its keys.
    func decode(_ node: ConfigNode, name: String, context: String) -> FlowMatch {
        guard let reader = diagnostics.object(node, name: name, context: context, allowed: Self.ruleKeys) else {
            return FlowMatch()
        }
        var match = FlowMatch()
        if use == .profile { reportRuleOnlyKeys(reader) }
        if let value = reader.node("method") { match.methods = diagnostics.attempt { try methods(value) } }
        if let value = reader.node("scheme") {
            match.scheme = diagnostics.attempt { try value.choice("'scheme'", of: ["http", "https"]) }
        }
        if let value = reader.node("host") { match.host = diagnostics.attempt { try host(value) } }
        if let value = reader.node("port") {
            match.port = diagnostics.attempt { try value.int("'port'", in: 1...65535) }
        }
        if let value = reader.node("path") { match.path = diagnostics.attempt { try path(value) } }
        if let value = reader.node("pathRegex") {
            match.pathRegex = diagnostics.attempt { try Self.regex(value, name: "'pathRegex'") }
        }
        if let value = reader.node("query") {
            match.query = valueTests(value, name: "'query'", subject: "query parameter", tests: Self.plainTests)
        }
        if let value = reader.node("headers") {
            match.headers = valueTests(value, name: "'headers'", subject: "header", tests: Self.headerTests)
        }
        if let value = reader.node("cookies") {
            match.cookies = valueTests(value, name: "'cookies'", subject: "cookie", tests: Self.plainTests)
        }
        if let value = reader.node("body") { match.body = body(value, context: context) }
        if use == .rule, let value = reader.node("role") {
            match.role = diagnostics.attempt { try role(value) }
        }
        if use == .rule, let value = reader.node("status") {
            match.status = diagnostics.attempt { try status(value) }
        }
        if use == .rule, let value = reader.node("responseHeaders") {
            match.responseHeaders = valueTests(
                value, name: "'responseHeaders'", subject: "response header", tests: Self.headerTests)
        }
        return match
    }

    private func reportRuleOnlyKeys(_ reader: ConfigObjectReader) {
        if let location = reader.keyLocation("role") {
            diagnostics.report(
                "'role' cannot be used in the auth profile: the profile is what gives requests their roles",
                at: location)
        }
        for key in Self.responseKeys {
            if let location = reader.keyLocation(key) {
                diagnostics.report(
                    "'\(key)' cannot be used in the auth profile: roles are decided from the request alone",
                    at: location)
            }
        }
    }

    private func methods(_ node: ConfigNode) throws(ConfigError) -> [String] {
        var methods: [String] = []
        for (method, element) in try node.stringOrList("'method'") {
            guard WireSyntax.isToken(method) else {
                throw ConfigError.mismatch(
                    "'method'", expected: "an HTTP method token such as \"GET\" (RFC 9110 §9)", found: element)
            }
            methods.append(method)
        }
        return methods
    }

    private func host(_ node: ConfigNode) throws(ConfigError) -> Glob {
        let pattern = try node.string("'host'")
        if let problem = Glob.problem(in: pattern) {
            throw ConfigError("'host' is not a valid glob: \(problem)", at: node.location)
        }
        if pattern.contains("/") {
            throw ConfigError(
                "'host' is a host name pattern, found \(node.foundDescription); use 'path' for paths", at: node.location
            )
        }
        if pattern.contains(":"), !pattern.hasPrefix("[") {
            throw ConfigError(
                "'host' must not include a port, found \(node.foundDescription); use 'port'", at: node.location)
        }
        return Glob(pattern)
    }

    private func path(_ node: ConfigNode) throws(ConfigError) -> Glob {
        let pattern = try node.string("'path'")
        if let problem = Glob.problem(in: pattern) {
            throw ConfigError("'path' is not a valid glob: \(problem)", at: node.location)
        }
        guard pattern.hasPrefix("/") || pattern.hasPrefix("*") else {
            throw ConfigError.mismatch(
                "'path'", expected: "a glob starting with '/' (the path without the query)", found: node)
        }
        return Glob(pattern)
    }

    static func regex(_ node: ConfigNode, name: String) throws(ConfigError) -> RegexPattern {
        let pattern = try node.string(name)
        if let problem = RegexPattern.problem(in: pattern) {
            throw ConfigError("\(name) is not a valid regular expression: \(problem)", at: node.location)
        }
        return RegexPattern(pattern)
    }

    private func role(_ node: ConfigNode) throws(ConfigError) -> String {
        let role = try node.nonEmptyString("'role'")
        if let problem = profile.problem(withRole: role) { throw ConfigError(problem, at: node.location) }
        if let warning = profile.warning(withRole: role, "'role: \"\(role)\"' matches every request") {
            diagnostics.warn(warning, at: node.location)
        }
        return role
    }

    private func status(_ node: ConfigNode) throws(ConfigError) -> StatusMatch {
        let wording = "a status code from 100 to 599, a list of them, or a class such as \"5xx\""
        switch node.kind {
        case .number:
            return .codes([try node.int("'status'", in: 100...599, expected: wording)])
        case .array(let elements) where !elements.isEmpty:
            var codes: [Int] = []
            for element in elements { codes.append(try element.int("each entry of 'status'", in: 100...599)) }
            return .codes(codes)
        case .string(let text):
            let scalars = Array(text.lowercased().unicodeScalars)
            guard scalars.count == 3, ("1"..."5").contains(scalars[0]), scalars[1] == "x", scalars[2] == "x" else {
                throw ConfigError.mismatch("'status'", expected: wording, found: node)
            }
            return .statusClass(Int(scalars[0].value) - 0x30)
        default:
            throw ConfigError.mismatch("'status'", expected: wording, found: node)
        }
    }
}
