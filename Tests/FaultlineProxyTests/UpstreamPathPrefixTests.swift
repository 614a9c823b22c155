import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineTrace
import Testing

/// A reverse upstream given with a path (`http://host/api`) keeps it: every request's path goes
/// upstream under that prefix, while rules and the trace's `path` keep the client's path.
@Suite struct UpstreamPathPrefixTests {
    @Test func theURLsPathBecomesThePrefix() throws {
        let endpoint = try UpstreamEndpoint(url: "http://127.0.0.1:3000/api/")
        #expect(endpoint.pathPrefix == "/api")
        #expect(endpoint.description == "http://127.0.0.1:3000/api")
        #expect(try UpstreamEndpoint(url: endpoint.description) == endpoint)
        #expect(try UpstreamEndpoint(url: "https://api.example.test/").pathPrefix == "")
        #expect(
            try ProxyMode(parsing: "reverse:http://127.0.0.1:3000/api/v2").description
                == "reverse:http://127.0.0.1:3000/api/v2")
    }

    @Test(arguments: [
        "http://127.0.0.1:3000/api?x=1", "http://127.0.0.1:3000/api#top", "http://user@127.0.0.1:3000/api",
        "http://127.0.0.1:3000/a b", "http://127.0.0.1:3000/a%2", "http://127.0.0.1:3000/a\r\nX: y", "http:///api",
    ])
    func aPrefixThatCannotGoInARequestLineIsRefused(url: String) {
        #expect { _ = try UpstreamEndpoint(url: url) } throws: { error in
            "\(error)".contains("expected an upstream URL") || "\(error)".contains("bad path prefix")
        }
    }

    @Test func originFormGoesUpstreamUnderThePrefix() throws {
        let upstream = try UpstreamEndpoint(url: "http://127.0.0.1:3000/api")
        var play = Playbook(mode: .reverse(upstream))
        play.client("GET /v1/me?x=1 HTTP/1.1\r\nHost: faultline.local:9000\r\n\r\n")
        play.expect([Lines.idle, "cancel clientIdle", "connect http://127.0.0.1:3000/api"])
        play.connected()
        let sent = ParsedMessage(play.takeUpstreamText())
        #expect(sent.startLine == "GET /api/v1/me?x=1 HTTP/1.1")
        #expect(sent.values("Host") == ["127.0.0.1:3000"])
        let received = try #require(try play.events().first)
        #expect(received.string("url") == "http://127.0.0.1:3000/api/v1/me?x=1")
        #expect(received.string("path") == "/v1/me")
        play.expect(["arm responseHead 60s"])
    }

    @Test func anHTTPSURLToAForwardListenerIsAnHTTPSOrigin() throws {
        func route(_ target: String) throws(RequestRoute.Refusal) -> RequestRoute {
            try RequestRoute.decide(
                HTTPRequestHead(method: "GET", target: target, version: .http1_1, headers: HTTPHeaders()),
                mode: .forward)
        }
        #expect(
            try route("https://api.test/v1?x=1").endpoint
                == UpstreamEndpoint(scheme: "https", host: "api.test", port: 443))
        #expect(try route("https://api.test:8443/").endpoint.port == 8443)
        #expect(try route("https://api.test/v1?x=1").url == "https://api.test/v1?x=1")
        #expect(try route("http://api.test/").endpoint.port == 80)
        #expect(throws: RequestRoute.Refusal.self) { try route("ftp://api.test/") }
    }

    @Test func absoluteFormToAReverseListenerGetsThePrefixToo() throws {
        let route = try RequestRoute.decide(
            HTTPRequestHead(
                method: "GET", target: "http://faultline.local/", version: .http1_1, headers: HTTPHeaders()),
            mode: .reverse(try UpstreamEndpoint(url: "http://127.0.0.1:3000/api")))
        #expect(route.outboundTarget == "/api/")
        #expect(route.path == "/")
    }
}
