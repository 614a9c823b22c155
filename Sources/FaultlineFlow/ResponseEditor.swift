public import FaultlineHTTP1
import FaultlineRules

/// Applies a response plan's rewrites and cookie changes to an upstream head (and, for JSON
/// edits, to its body). Pure functions, tested without sockets.
public enum ResponseEditor {
    /// The edited head, and the replacement body when a rewrite sets one.
    public struct Edited: Sendable, Equatable {
        public var head: HTTPResponseHead
        public var body: [UInt8]?
    }

    /// Applies rewrites in order (status, headers set/add/remove, body), then strips and adds
    /// Set-Cookie fields. `replay` cookies come from `replayedCookies` (as the decision read them);
    /// when none was seen the action adds nothing.
    static func apply(_ plan: ResponsePlan, to head: HTTPResponseHead, replayedCookies: [String: String]) -> Edited {
        var edited = Edited(head: head, body: nil)
        for rewrite in plan.rewrites {
            if let status = rewrite.status {
                edited.head.status = status
                edited.head.reason = ErrorResponse.reasonPhrase(status)
            }
            edited.head.headers.apply(remove: rewrite.removeHeaders, set: rewrite.setHeaders, add: rewrite.addHeaders)
            if let body = rewrite.body { edited.body = body }
        }
        for name in plan.stripCookies {
            let kept = edited.head.headers.filter { field in
                guard field.name.lowercased() == "set-cookie" else { return true }
                return name != "*" && CookieMemory.cookieName(field.value) != name
            }
            edited.head.headers = HTTPHeaders(kept.map { ($0.name, $0.value) })
        }
        for spec in plan.setCookies {
            switch spec {
            case .literal(let value):
                edited.head.headers.add(name: "Set-Cookie", value: value)
            case .replay(let name):
                if let value = replayedCookies[name] {
                    edited.head.headers.add(name: "Set-Cookie", value: value)
                }
            }
        }
        return edited
    }

    /// The body with every `jsonSet` applied to its text (every other byte kept: number spellings,
    /// key order, spacing), or nil when it is not JSON or an edit does not apply (it then passes
    /// unchanged).
    static func applyJSONEdits(_ plan: ResponsePlan, to body: [UInt8]) -> [UInt8]? {
        JSONTextEditor.set(plan.rewrites.flatMap(\.jsonSet), in: body)
    }
}
