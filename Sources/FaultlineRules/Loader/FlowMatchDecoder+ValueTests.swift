import FaultlineConfig

/// Name-to-test maps (`query`, `headers`, `cookies`, `responseHeaders`) and `body`.
extension FlowMatchDecoder {
    /// Tests allowed for query parameters and cookies.
    static let plainTests = ["equals", "exists", "regex"]
    /// Tests allowed for request and response headers.
    static let headerTests = ["equals", "exists", "regex", "contains"]

    /// `{ name: "value" | { equals | exists | regex | contains } }`. Header and cookie names must
    /// be tokens; header names are compared case-insensitively, so two spellings of one name are
    /// an error rather than two tests the engine would have to merge.
    func valueTests(_ node: ConfigNode, name: String, subject: String, tests: [String]) -> [String: ValueMatch] {
        guard diagnostics.object(node, name: name, context: name, allowed: nil) != nil, let members = node.members
        else {
            return [:]
        }
        let namesAreTokens = subject.hasSuffix("header") || subject == "cookie"
        let caseInsensitive = subject.hasSuffix("header")
        var result: [String: ValueMatch] = [:]
        var seen: [String: (String, SourceLocation)] = [:]
        for member in members {
            if namesAreTokens, !WireSyntax.isToken(member.key) {
                diagnostics.report(
                    "'\(member.key)' is not a valid \(subject) name (RFC 9110 §5.6.2: a token)", at: member.keyLocation)
                continue
            }
            if member.key.isEmpty {
                diagnostics.report("a \(subject) name must not be empty", at: member.keyLocation)
                continue
            }
            let folded = caseInsensitive ? member.key.lowercased() : member.key
            if let (first, location) = seen[folded] {
                diagnostics.report(
                    "\(subject) '\(member.key)' is already tested as '\(first)' at \(location.lineColumn) (\(subject) names ignore case)",
                    at: member.keyLocation)
                continue
            }
            seen[folded] = (member.key, member.keyLocation)
            if let test = valueTest(member.value, subject: "\(subject) '\(member.key)'", tests: tests) {
                result[member.key] = test
            }
        }
        return result
    }

    /// One test: a plain string means `equals`; an object holds exactly one of `tests`.
    func valueTest(_ node: ConfigNode, subject: String, tests: [String]) -> ValueMatch? {
        let testList = ConfigNode.listWording(tests.map { "'\($0)'" }, conjunction: "or")
        switch node.kind {
        case .string(let value):
            return .equals(value)
        case .object(let members):
            let context = "the test for \(subject)"
            guard diagnostics.object(node, name: subject, context: context, allowed: tests) != nil else { return nil }
            let known = members.filter { tests.contains($0.key) }
            guard let test = known.first else {
                if members.isEmpty { diagnostics.report("\(context) needs one of \(testList)", at: node.location) }
                return nil
            }
            if known.count > 1 {
                diagnostics.report(
                    "\(context) takes exactly one of \(testList); found '\(test.key)' and '\(known[1].key)'",
                    at: known[1].keyLocation)
                return nil
            }
            let value = test.value
            return diagnostics.attempt {
                switch test.key {
                case "equals": return .equals(try value.string("'equals'"))
                case "exists": return .exists(try value.bool("'exists'"))
                case "regex": return .regex(try Self.regex(value, name: "'regex'"))
                case "contains": return .contains(try value.nonEmptyString("'contains'"))
                default: preconditionFailure("unlisted value test '\(test.key)'")
                }
            }
        default:
            diagnostics.report(
                ConfigError.mismatch(subject, expected: "a string or an object with one of \(testList)", found: node))
            return nil
        }
    }

    /// `{ json: { "/pointer": value | { exists } }, form: { field: "value" | { exists } }, contains }`.
    func body(_ node: ConfigNode, context: String) -> BodyMatch? {
        let bodyContext = "'body' of \(context)"
        guard
            let reader = diagnostics.object(
                node, name: "'body'", context: bodyContext, allowed: ["json", "form", "contains"])
        else {
            return nil
        }
        var body = BodyMatch()
        if let json = reader.node("json"),
            diagnostics.object(json, name: "'json'", context: "'json'", allowed: nil) != nil
        {
            for member in json.members ?? [] {
                guard diagnostics.attempt({ try ConfigNode.pointer(member.key, at: member.keyLocation) }) != nil else {
                    continue
                }
                if let test = jsonTest(member.value) { body.json[member.key] = test }
            }
        }
        if let form = reader.node("form") {
            body.form = valueTests(form, name: "'form'", subject: "form field", tests: ["exists"])
        }
        if let contains = reader.node("contains") {
            body.contains = diagnostics.attempt { try contains.nonEmptyString("'contains'") }
        }
        return body
    }

    /// An object whose only member is a boolean `exists` is the existence test; any other value
    /// is compared as JSON. (So a literal `{ exists: true }` body value cannot be matched by
    /// equality; no API is expected to send one.)
    private func jsonTest(_ node: ConfigNode) -> JSONValueMatch? {
        if let members = node.members, members.count == 1, members[0].key == "exists",
            case .bool(let exists) = members[0].value.kind
        {
            return .exists(exists)
        }
        return diagnostics.attempt { .equals(try node.jsonValue()) }
    }
}
