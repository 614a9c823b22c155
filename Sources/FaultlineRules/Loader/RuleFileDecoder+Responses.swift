import FaultlineConfig
import FaultlineCore

/// `respond` and `rateLimit`, and the headers and bodies they and `rewrite` share.
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
        if body.isJSON { Self.typeAsJSON(&response.headers) }
        return response
    }

    /// Statuses that tell a client when to come back: 429 Too Many Requests (RFC 6585 §4) and 503
    /// Service Unavailable (RFC 9110 §15.6.4).
    static let rateLimitStatuses = [429, 503]
    /// The longest `retryAfter` a rule may give: a day.
    static let longestRetryAfter = 86_400

    /// `rateLimit: 2`, or `{ retryAfter: 2, status: 503, headers, body | json | bodyFile }`: a
    /// 429 (or 503) with `Retry-After: 2`, in delta-seconds (RFC 9110 §10.2.3), and unless the
    /// rule gives one, a JSON body saying so. What the retry-after-respected clause judges.
    func rateLimit(_ node: ConfigNode) -> SyntheticResponse? {
        let retryAfterExpected = "whole seconds to wait, 0 to \(Self.longestRetryAfter)"
        if case .number = node.kind {
            return diagnostics.attempt {
                let seconds = try node.int(
                    "'rateLimit'", in: 0...Self.longestRetryAfter, expected: retryAfterExpected)
                return Self.rateLimited(status: 429, retryAfter: seconds, headers: [], body: nil)
            }
        }
        guard case .object = node.kind else {
            diagnostics.report(
                ConfigError.mismatch(
                    "'rateLimit'", expected: "seconds to wait, or an object such as { retryAfter: 2, status: 503 }",
                    found: node))
            return nil
        }
        let keys = ["retryAfter", "status", "headers"] + Self.bodyKeys
        guard let reader = diagnostics.object(node, name: "'rateLimit'", context: "'rateLimit'", allowed: keys) else {
            return nil
        }
        var status = 429
        if let statusNode = reader.node("status"),
            let value = diagnostics.attempt({ () throws(ConfigError) -> Int in
                let value = try statusNode.int("'status'", expected: "429 or 503")
                guard Self.rateLimitStatuses.contains(value) else {
                    throw ConfigError.mismatch("'status'", expected: "429 or 503", found: statusNode)
                }
                return value
            })
        {
            status = value
        }
        let headers = reader.node("headers").map { headerList($0, name: "'headers'", allowLists: true) } ?? []
        let body = body(reader)
        guard
            let seconds = diagnostics.attempt({
                try reader.requiredInt("retryAfter", in: 0...Self.longestRetryAfter, expected: retryAfterExpected)
            })
        else { return nil }
        return Self.rateLimited(
            status: status, retryAfter: seconds, headers: headers, body: body.bytes.map { ($0, body.isJSON) })
    }

    /// A 429 or 503 with `Retry-After`, the rule's headers, and its body or a JSON one saying
    /// when to come back (`Content-Type` added for JSON unless the rule gives one).
    private static func rateLimited(
        status: Int, retryAfter: Int, headers: [(name: String, value: String)], body: (bytes: [UInt8], isJSON: Bool)?
    ) -> SyntheticResponse {
        let error = status == 429 ? "rate_limited" : "unavailable"
        let (bytes, isJSON) = body ?? (Array(#"{"error":"\#(error)","retry_after":\#(retryAfter)}"#.utf8), true)
        var response = SyntheticResponse(
            status: status, headers: [(name: "Retry-After", value: String(retryAfter))] + headers, body: bytes)
        if isJSON { typeAsJSON(&response.headers) }
        return response
    }

    /// Adds `Content-Type: application/json` for a JSON body, unless the rule gave a type.
    private static func typeAsJSON(_ headers: inout [(name: String, value: String)]) {
        guard !headers.contains(where: { $0.name.lowercased() == "content-type" }) else { return }
        headers.append((name: "Content-Type", value: "application/json"))
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
