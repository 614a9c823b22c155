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

    @Test(arguments: [("", ""), ("/api", "/api"), ("/api/", "/api"), ("/api///", "/api"), ("/", "")])
    func aPathPrefixLosesItsTrailingSlashes(given: String, kept: String) {
        #expect(UpstreamEndpoint(scheme: "http", host: "h", port: 1, pathPrefix: given).pathPrefix == kept)
    }
}
