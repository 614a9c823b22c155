import FaultlineConfig
import FaultlineCore

/// A `rewrite` as written. Which message it edits is known only once the rule's phase is:
/// `status` edits a response, `method`, `path` and `query` a request, and headers and bodies
/// either (RuleFileDecoder+Phase.swift decides).
struct RewriteDraft {
    var status: Int?
    var method: String?
    var path: String?
    var query: String?
    var setHeaders: [(name: String, value: String)] = []
    var addHeaders: [(name: String, value: String)] = []
    var removeHeaders: [String] = []
    var body: [UInt8]?
    var jsonSet: [(pointer: String, value: JSONValue)] = []
    /// Where `status` is written, when it is (even with a wrong value: the key alone says which
    /// message the rewrite is for).
    var statusKey: SourceLocation?
    /// `method`, `path` and `query` as written, with their key positions, in file order.
    var requestKeys: [(key: String, location: SourceLocation)] = []

    /// The rewrite of a response-phase rule.
    var response: ResponseRewrite {
        ResponseRewrite(
            status: status, setHeaders: setHeaders, addHeaders: addHeaders, removeHeaders: removeHeaders, body: body,
            jsonSet: jsonSet)
    }

    /// The rewrite of a request-phase rule.
    var request: RequestRewrite {
        RequestRewrite(
            method: method, path: path, query: query, setHeaders: setHeaders, addHeaders: addHeaders,
            removeHeaders: removeHeaders, body: body, jsonSet: jsonSet)
    }
}

/// `rewrite`: status, method, path, query, headers and body.
extension RuleFileDecoder {
    /// The keys that make a rewrite edit the request.
    static let requestRewriteKeys = ["method", "path", "query"]
    static let rewriteKeys = ["status"] + requestRewriteKeys + ["headers", "jsonSet"] + bodyKeys

    func rewrite(_ node: ConfigNode) -> RewriteDraft? {
        guard let reader = diagnostics.object(node, name: "'rewrite'", context: "'rewrite'", allowed: Self.rewriteKeys)
        else {
            return nil
        }
        if reader.members.isEmpty {
            diagnostics.report(
                "'rewrite' changes nothing: give 'status', 'method', 'path', 'query', 'headers', 'body', 'json', "
                    + "'bodyFile' or 'jsonSet'",
                at: node.location)
        }
        var draft = RewriteDraft()
        if let member = reader.member("status") {
            draft.statusKey = member.keyLocation
            draft.status = diagnostics.attempt { try member.value.int("'status'", in: Self.syntheticStatuses) }
        }
        for member in reader.members where Self.requestRewriteKeys.contains(member.key) {
            draft.requestKeys.append((key: member.key, location: member.keyLocation))
        }
        if let value = reader.node("method") { draft.method = diagnostics.attempt { try Self.method(value) } }
        if let value = reader.node("path") { draft.path = diagnostics.attempt { try Self.originPath(value) } }
        if let value = reader.node("query") { draft.query = diagnostics.attempt { try Self.query(value) } }
        if let headersNode = reader.node("headers") { headerChanges(headersNode, into: &draft) }
        let body = body(reader)
        draft.body = body.bytes
        if body.isJSON,
            !(draft.setHeaders + draft.addHeaders).contains(where: { $0.name.lowercased() == "content-type" })
        {
            draft.setHeaders.append((name: "Content-Type", value: "application/json"))
        }
        if let member = reader.member("jsonSet") {
            if let other = Self.bodyKeys.first(where: { reader.member($0) != nil }) {
                diagnostics.report(
                    "'jsonSet' cannot be combined with '\(other)', which replaces the whole body",
                    at: member.keyLocation)
            }
            if diagnostics.object(member.value, name: "'jsonSet'", context: "'jsonSet'", allowed: nil) != nil {
                for entry in member.value.members ?? [] {
                    guard
                        let pointer = diagnostics.attempt({ try ConfigNode.pointer(entry.key, at: entry.keyLocation) }),
                        let value = diagnostics.attempt({ try entry.value.jsonValue() })
                    else { continue }
                    draft.jsonSet.append((pointer: pointer, value: value))
                }
            }
        }
        return draft
    }

    /// A method is a token (RFC 9110 §9.1), and not `CONNECT`: its request-target is an authority
    /// (RFC 9112 §3.2.3), which a request with a path cannot turn into.
    private static func method(_ node: ConfigNode) throws(ConfigError) -> String {
        let method = try node.string("'method'")
        guard WireSyntax.isToken(method) else {
            throw ConfigError.mismatch(
                "'method'", expected: #"a method name (RFC 9110 §9.1: a token, such as "POST")"#, found: node)
        }
        guard method != "CONNECT" else {
            throw ConfigError(
                "'method' cannot be \"CONNECT\": a CONNECT request names an authority, not a path (RFC 9112 §3.2.3)",
                at: node.location)
        }
        return method
    }

    /// An origin-form path (RFC 9112 §3.2.1): `/` first, then RFC 3986 path characters and `%XX`
    /// escapes. A `?` or `#` gets its own message: the query is `query`'s, and a request target
    /// never carries a fragment (RFC 9112 §3.2).
    private static func originPath(_ node: ConfigNode) throws(ConfigError) -> String {
        let path = try node.string("'path'")
        if path.contains("?") {
            throw ConfigError(
                "'path' cannot hold a query: give it in 'query' (without the '?'), found \(node.foundDescription)",
                at: node.location)
        }
        if path.contains("#") {
            throw ConfigError(
                "'path' cannot hold a fragment: a request target has none (RFC 9112 §3.2), found \(node.foundDescription)",
                at: node.location)
        }
        guard path.hasPrefix("/"), URISyntax.isStrictPath(path) else {
            throw ConfigError.mismatch(
                "'path'",
                expected:
                    #"an origin-form path such as "/v2/items": '/' first, then RFC 3986 path characters and %XX escapes (a space is %20)"#,
                found: node)
        }
        return path
    }

    /// The whole query without its `?` (RFC 3986 §3.4); `""` removes the query.
    private static func query(_ node: ConfigNode) throws(ConfigError) -> String {
        let query = try node.string("'query'")
        guard !query.hasPrefix("?"), URISyntax.isStrictQuery(query) else {
            throw ConfigError.mismatch(
                "'query'",
                expected:
                    #"a query without its '?', such as "page=2&sort=name" ("" removes the query): RFC 3986 query characters and %XX escapes (a space is %20)"#,
                found: node)
        }
        return query
    }

    /// `headers: { set: {name: value}, add: {name: value | [values]}, remove: name | [names] }`.
    private func headerChanges(_ node: ConfigNode, into draft: inout RewriteDraft) {
        let context = "'headers' of 'rewrite'"
        guard
            let reader = diagnostics.object(
                node, name: "'headers'", context: context, allowed: ["set", "add", "remove"])
        else { return }
        if let set = reader.node("set") { draft.setHeaders = headerList(set, name: "'set'", allowLists: false) }
        if let add = reader.node("add") { draft.addHeaders = headerList(add, name: "'add'", allowLists: true) }
        if let remove = reader.node("remove"), let names = diagnostics.attempt({ try remove.stringOrList("'remove'") })
        {
            for (name, element) in names {
                if WireSyntax.isToken(name) {
                    draft.removeHeaders.append(name)
                } else {
                    diagnostics.report(
                        ConfigError.mismatch(
                            "'remove'", expected: "header names (RFC 9110 §5.1: tokens)", found: element))
                }
            }
        }
    }
}
