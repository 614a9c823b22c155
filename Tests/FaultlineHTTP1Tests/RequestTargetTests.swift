import Testing

@testable import FaultlineHTTP1

@Suite struct RequestTargetTests {
    @Test func originForm() throws {
        #expect(try RequestTarget.parse("/a/b?x=1", method: "GET") == .origin(path: "/a/b", query: "x=1"))
        #expect(try RequestTarget.parse("/", method: "POST") == .origin(path: "/", query: nil))
        #expect(try RequestTarget.parse("/p?", method: "GET") == .origin(path: "/p", query: ""))
        #expect(try RequestTarget.parse("/a?b?c", method: "GET") == .origin(path: "/a", query: "b?c"))
    }

    @Test func absoluteForm() throws {
        #expect(
            try RequestTarget.parse("HTTP://Example.COM:8080/p?q", method: "GET")
                == .absolute(
                    scheme: "http", authority: Authority(host: "Example.COM", port: 8080), path: "/p", query: "q"))
        #expect(
            try RequestTarget.parse("https://h", method: "GET")
                == .absolute(scheme: "https", authority: Authority(host: "h"), path: "/", query: nil))
        #expect(
            try RequestTarget.parse("http://h?q=1", method: "GET")
                == .absolute(scheme: "http", authority: Authority(host: "h"), path: "/", query: "q=1"))
        #expect(
            try RequestTarget.parse("http://[::1]:80/x", method: "OPTIONS")
                == .absolute(scheme: "http", authority: Authority(host: "::1", port: 80), path: "/x", query: nil))
        #expect(
            try RequestTarget.parse("http://h:/x", method: "GET")
                == .absolute(scheme: "http", authority: Authority(host: "h"), path: "/x", query: nil))
    }

    @Test func authorityForm() throws {
        #expect(
            try RequestTarget.parse("example.com:443", method: "CONNECT")
                == .authority(Authority(host: "example.com", port: 443)))
        #expect(
            try RequestTarget.parse("[2001:db8::1]:8443", method: "CONNECT")
                == .authority(Authority(host: "2001:db8::1", port: 8443)))
        #expect(
            try RequestTarget.parse("10.0.0.1:1", method: "CONNECT") == .authority(Authority(host: "10.0.0.1", port: 1))
        )
    }

    @Test func asteriskForm() throws {
        #expect(try RequestTarget.parse("*", method: "OPTIONS") == .asterisk)
    }

    @Test(arguments: [
        ("*", "GET", HTTP1Error.requestTargetFormMismatch),
        ("*", "options", .requestTargetFormMismatch),
        ("/", "CONNECT", .requestTargetFormMismatch),
        ("h:443", "GET", .requestTargetFormMismatch),
        ("http://h/", "CONNECT", .requestTargetFormMismatch),
        ("h", "CONNECT", .invalidRequestTarget),
        ("h:", "CONNECT", .invalidRequestTarget),
        ("h:65536", "CONNECT", .invalidRequestTarget),
        ("h:123456", "CONNECT", .invalidRequestTarget),
        ("[::1", "CONNECT", .invalidRequestTarget),
        ("[]:80", "CONNECT", .invalidRequestTarget),
        ("a%zz:80", "CONNECT", .invalidRequestTarget),
        ("", "GET", .invalidRequestTarget),
        ("/a b", "GET", .invalidRequestTarget),
        ("/a#f", "GET", .invalidRequestTarget),
        ("http://u:p@h/", "GET", .invalidRequestTarget),
        ("http:/h", "GET", .invalidRequestTarget),
        ("1http://h/", "GET", .invalidRequestTarget),
        ("mailto:someone", "GET", .invalidRequestTarget),
    ])
    func rejected(target: String, method: String, error: HTTP1Error) {
        #expect(throws: error) { try RequestTarget.parse(target, method: method) }
    }

    @Test func descriptions() throws {
        #expect(Authority(host: "::1", port: 443).description == "[::1]:443")
        #expect(Authority(host: "h").description == "h")
        #expect(Authority(host: "h", port: 80).description == "h:80")
        for text in ["/a?b", "http://h:1/p?q", "[::1]:443", "*"] {
            let method = text.hasPrefix("[") ? "CONNECT" : "OPTIONS"
            #expect(try RequestTarget.parse(text, method: method).description == text)
        }
        #expect(Authority.parse("[fe80::1%25eth0]:80") == Authority(host: "fe80::1%25eth0", port: 80))
        #expect(Authority.parse("h", portRequired: true) == nil)
        #expect(Authority.parse("") == nil)
    }
}
