import FaultlineHTTP1
import FaultlineRules

/// Applies a request plan's `route` and request `rewrite`s to what goes upstream. Pure functions,
/// tested without sockets.
enum RequestEditor {
    /// Routes and rewrites the request head; the body is `RequestPlan.bodyReplacement`'s concern.
    static func apply(_ plan: RequestPlan, to request: inout FlowRequest, outbound: inout OutboundRequest) {
        if let route = plan.route {
            request.endpoint = routed(request.endpoint, to: route)
            outbound.authority = request.endpoint.hostHeaderValue
        }
        for rewrite in plan.rewrites {
            if let method = rewrite.method { request.method = method }
            if let path = rewrite.path { request.path = path }
            if let query = rewrite.query { request.query = query.isEmpty ? nil : query }
            request.headers.apply(remove: rewrite.removeHeaders, set: rewrite.setHeaders, add: rewrite.addHeaders)
        }
        outbound.method = request.method
        outbound.headers = request.headers
        if plan.route != nil || plan.rewrites.contains(where: { $0.path != nil || $0.query != nil }) {
            // RFC 9112 §3.2.1: origin-form, the upstream's path prefix first.
            let path = request.endpoint.pathPrefix + request.path
            outbound.target = request.query.map { "\(path)?\($0)" } ?? path
        }
    }

    /// The endpoint a `route` names: each part it leaves out is the request's own. A new scheme
    /// without a port takes its default port; a new host is dialled itself.
    static func routed(_ endpoint: UpstreamEndpoint, to route: RouteTarget) -> UpstreamEndpoint {
        let scheme = route.scheme ?? endpoint.scheme
        let port =
            route.port
            ?? (scheme == endpoint.scheme ? endpoint.port : UpstreamEndpoint.defaultPort(of: scheme))
        let host = route.host ?? endpoint.host
        return UpstreamEndpoint(
            scheme: scheme, host: host, port: port, connectHost: route.host == nil ? endpoint.connectHost : nil,
            pathPrefix: route.pathPrefix ?? endpoint.pathPrefix)
    }
}

extension RequestPlan {
    /// True when a rewrite replaces or edits the request body, so the client's body is not streamed.
    public var replacesBody: Bool { rewrites.contains { $0.body != nil || !$0.jsonSet.isEmpty } }

    /// True when a rewrite edits the JSON body, which must then be read whole first.
    public var needsWholeBody: Bool { rewrites.contains(where: \.needsBody) }

    /// The body after the rewrites, or nil when none touches it. `original` is the client's whole
    /// body, or nil when it was too large to read (JSON edits are then skipped).
    func bodyReplacement(original: [UInt8]?) -> [UInt8]? {
        guard replacesBody else { return nil }
        var body = original
        for rewrite in rewrites {
            if let replacement = rewrite.body { body = replacement }
            if !rewrite.jsonSet.isEmpty, let current = body {
                body = JSONTextEditor.set(rewrite.jsonSet, in: current) ?? current
            }
        }
        return body ?? original ?? []
    }
}

extension RequestRewrite {
    /// The rewrite without its JSON edits (the body was too large to read).
    var withoutJSONEdits: RequestRewrite {
        var copy = self
        copy.jsonSet = []
        return copy
    }
}

extension ResponseRewrite {
    /// The rewrite without its JSON edits (the body was too large to read).
    var withoutJSONEdits: ResponseRewrite {
        var copy = self
        copy.jsonSet = []
        return copy
    }
}
