import FaultlineHTTP1
import FaultlineProxy
import Testing

/// A forward proxy's session hands `RequestRoute.decide` the endpoint of its previous request, to
/// be reused when the next request is for the same origin. Whatever it is handed, the route must
/// name the endpoint the request itself names.
@Suite struct RequestRoutePreviousEndpointTests {
    private func route(_ target: String, after previous: UpstreamEndpoint?) throws -> RequestRoute {
        try RequestRoute.decide(
            HTTPRequestHead(method: "GET", target: target, version: .http1_1, headers: HTTPHeaders()),
            mode: .forward, previous: previous)
    }

    @Test(arguments: [
        "http://api.test/v1", "http://api.test:8080/v1", "https://api.test/v1", "http://other.test/v1",
        "http://API.test/v1", "http://127.0.0.1:80/", "http://[::1]:8080/x",
    ])
    func theRouteNamesTheRequestsOwnOrigin(target: String) throws {
        let previousEndpoints = [
            UpstreamEndpoint(scheme: "http", host: "api.test", port: 80),
            UpstreamEndpoint(scheme: "http", host: "api.test", port: 8080),
            UpstreamEndpoint(scheme: "https", host: "api.test", port: 443),
            UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 80),
            UpstreamEndpoint(scheme: "http", host: "::1", port: 8080),
            // Equal host, port and scheme, but not what an absolute-form request makes.
            UpstreamEndpoint(scheme: "http", host: "api.test", port: 80, connectHost: "10.0.0.1"),
            UpstreamEndpoint(scheme: "http", host: "api.test", port: 80, pathPrefix: "/api"),
        ]
        let fresh = try route(target, after: nil)
        for previous in previousEndpoints {
            let routed = try route(target, after: previous)
            #expect(routed.endpoint == fresh.endpoint, "after \(previous)")
            #expect(routed.endpoint.hostHeaderValue == fresh.endpoint.hostHeaderValue)
            #expect(routed.endpoint.connectHost == nil && routed.endpoint.pathPrefix.isEmpty)
            #expect(routed.url == fresh.url && routed.outboundTarget == fresh.outboundTarget)
        }
    }

    @Test func aRequestToTheSameOriginGetsThePreviousEndpoint() throws {
        let previous = try route("http://api.test:8080/a", after: nil).endpoint
        #expect(previous.isPlain(scheme: "http", host: "api.test", port: 8080))
        let next = try route("http://api.test:8080/b?x=1", after: previous)
        #expect(next.endpoint == previous)
        #expect(next.url == "http://api.test:8080/b?x=1")
        #expect(!previous.isPlain(scheme: "https", host: "api.test", port: 8080))
        #expect(!previous.isPlain(scheme: "http", host: "api.test", port: 80))
        #expect(!previous.isPlain(scheme: "http", host: "api.tes", port: 8080))
    }
}
