import FaultlineConfig
import FaultlineCore

/// `respond`, and the headers and bodies `respond` and `rewrite` share.
extension RuleFileDecoder {
    /// Statuses a rule may make a client see as the final response. A 1xx is interim (RFC 9110
    /// §15.2) and would leave the client waiting, so synthetic and rewritten statuses start at 200.
    static let syntheticStatuses = 200...599
    static let bodyKeys = ["body", "json", "bodyFile"]

    func respond(_ node: ConfigNode) -> SyntheticResponse? {
        let keys = ["status", "reason", "headers"] + Self.bodyKeys
        guard let reader = diagnostics.object(node, name: "'respond'", context: "'respond'", allowed: keys) else {
            return nil
        }
        var response = SyntheticResponse(status: 500)
        if let status = diagnostics.attempt({ try reader.requiredInt("status", in: Self.syntheticStatuses) }) {
            response.status = status
        }
        if let reasonNode = reader.node("reason") {
            response.reason = diagnostics.attempt {
                let reason = try reasonNode.string("'reason'")
                guard WireSyntax.isFieldValue(reason) else {
                    throw ConfigError.mismatch("'reason'", expected: "a reason phrase on one line", found: reasonNode)
                }
                return reason
            }
        }
        if let headersNode = reader.node("headers") {
            response.headers = headerList(headersNode, name: "'headers'", allowLists: true)
        }
        let body = body(reader)
        response.body = body.bytes ?? []
        if body.isJSON, !response.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            response.headers.append((name: "Content-Type", value: "application/json"))
        }
        return response
    }

    /// `{ "Name": "value" }`, with `[values]` for repeated fields when `allowLists`, in file order.
    func headerList(_ node: ConfigNode, name: String, allowLists: Bool) -> [(name: String, value: String)] {
        guard diagnostics.object(node, name: name, context: name, allowed: nil) != nil, let members = node.members
        else { return [] }
        var headers: [(name: String, value: String)] = []
        for member in members {
            guard WireSyntax.isToken(member.key) else {
                diagnostics.report(
                    "'\(member.key)' is not a valid header name (RFC 9110 §5.1: a token)", at: member.keyLocation)
                continue
            }
            let values: [ConfigNode]
            switch member.value.kind {
            case .array(let elements) where allowLists: values = elements
            default: values = [member.value]
            }
            let expected = allowLists ? "a string or a list of strings" : "a string"
            for value in values {
                guard case .string(let text) = value.kind else {
                    diagnostics.report(ConfigError.mismatch("header '\(member.key)'", expected: expected, found: value))
                    continue
                }
                guard WireSyntax.isFieldValue(text) else {
                    diagnostics.report(
                        "header '\(member.key)' must not contain CR, LF or NUL (RFC 9110 §5.5)", at: value.location)
                    continue
                }
                headers.append((name: member.key, value: text))
            }
        }
        return headers
    }

    /// At most one of `body` (text), `json` (serialized compactly) and `bodyFile` (read now,
    /// relative to the rules folder). `bytes` is nil when none is given.
    func body(_ reader: ConfigObjectReader) -> (bytes: [UInt8]?, isJSON: Bool) {
        let given = reader.members.filter { Self.bodyKeys.contains($0.key) }
        guard let first = given.first else { return (nil, false) }
        for extra in given.dropFirst() {
            diagnostics.report(
                "'\(extra.key)' cannot be combined with '\(first.key)': give one of 'body', 'json' or 'bodyFile'",
                at: extra.keyLocation)
        }
        let value = first.value
        switch first.key {
        case "body":
            return (diagnostics.attempt { Array(try value.string("'body'").utf8) }, false)
        case "json":
            return (diagnostics.attempt { try value.jsonValue().jsonBytes() }, true)
        default:
            guard let path = diagnostics.attempt({ try value.nonEmptyString("'bodyFile'") }) else {
                return (nil, false)
            }
            let resolved = path.hasPrefix("/") ? path : folder + "/" + path
            do {
                return (try RuleFileSystem.read(resolved), false)
            } catch {
                diagnostics.report("cannot read bodyFile '\(path)' (\(resolved)): \(error.reason)", at: value.location)
                return (nil, false)
            }
        }
    }
}
