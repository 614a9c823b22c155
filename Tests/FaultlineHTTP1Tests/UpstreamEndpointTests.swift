import Testing

@testable import FaultlineHTTP1

@Suite struct UpstreamEndpointTests {
    /// RFC 9110 §7.2: `Host` leaves out the scheme's default port and brackets an IPv6 literal.
    @Test(arguments: [
        ("http", "api.example.test", 80, "api.example.test"),
        ("http", "127.0.0.1", 8081, "127.0.0.1:8081"),
        ("http", "127.0.0.1", 36963, "127.0.0.1:36963"),
        ("https", "api.example.test", 443, "api.example.test"),
        ("https", "api.example.test", 80, "api.example.test:80"),
        ("http", "::1", 8080, "[::1]:8080"),
        ("https", "2001:db8::7", 443, "[2001:db8::7]"),
        ("HTTPS", "a.test", 443, "a.test"),
        ("Http", "a-very-long-host-name.example.test", 8443, "a-very-long-host-name.example.test:8443"),
    ])
    func theHostFieldIsWrittenOnce(scheme: String, host: String, port: Int, field: String) {
        let endpoint = UpstreamEndpoint(scheme: scheme, host: host, port: port)
        #expect(endpoint.hostHeaderValue == field)
        #expect(endpoint.scheme == scheme.lowercased())
    }

    /// The pool's key: endpoints made apart are equal (and hash alike) when every field is, a copy
    /// is equal to its original, and any one field told apart makes them differ.
    @Test func endpointsMadeApartAreEqualByTheirFields() {
        let one = UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 8081, pathPrefix: "/api")
        let again = UpstreamEndpoint(scheme: "HTTP", host: "127.0.0.1", port: 8081, pathPrefix: "/api/")
        let copy = one
        #expect(one == again)
        #expect(one.hashValue == again.hashValue)
        #expect(copy == one)
        #expect(Set([one, again, copy]).count == 1)
        let others = [
            UpstreamEndpoint(scheme: "https", host: "127.0.0.1", port: 8081, pathPrefix: "/api"),
            UpstreamEndpoint(scheme: "http", host: "127.0.0.2", port: 8081, pathPrefix: "/api"),
            UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 8082, pathPrefix: "/api"),
            UpstreamEndpoint(
                scheme: "http", host: "127.0.0.1", port: 8081, connectHost: "10.0.0.1", pathPrefix: "/api"),
            UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 8081, pathPrefix: "/v2"),
        ]
        for other in others { #expect(other != one, "\(other)") }
    }

    @Test(arguments: [("", ""), ("/api", "/api"), ("/api/", "/api"), ("/api///", "/api"), ("/", "")])
    func aPathPrefixLosesItsTrailingSlashes(given: String, kept: String) {
        #expect(UpstreamEndpoint(scheme: "http", host: "h", port: 1, pathPrefix: given).pathPrefix == kept)
    }
}
