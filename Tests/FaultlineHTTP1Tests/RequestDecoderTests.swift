import Testing

@testable import FaultlineHTTP1

@Suite struct RequestDecoderTests {
    private func head(
        _ method: String, _ target: String, _ headers: HTTPHeaders, version: HTTPVersion = .http1_1
    ) -> Item {
        .requestHead(HTTPRequestHead(method: method, target: target, version: version, headers: headers))
    }

    @Test func getWithoutBody() {
        let items = decodeRequests("GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
        #expect(items == [head("GET", "/index.html?x=1", [("Host", "example.com"), ("Accept", "*/*")]), .end(nil)])
    }

    @Test func postWithContentLength() {
        let items = decodeRequests("POST /submit HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(
            items == [
                head("POST", "/submit", [("Host", "h"), ("Content-Length", "11")]), .body(bytes("hello world")),
                .end(nil),
            ])
    }

    @Test func framingIsReportedAfterHead() throws {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("POST / HTTP/1.1\r\nHost: h\r\ncontent-LENGTH: 3\r\n\r\nabc"))
        #expect(decoder.isAtMessageBoundary)
        guard case .head = try decoder.nextEvent() else { Issue.record("expected head"); return }
        #expect(decoder.framing == .contentLength(3))
        #expect(!decoder.isAtMessageBoundary)
        #expect(try decoder.nextEvent() == .body(bytes("abc")[...]))
        #expect(try decoder.nextEvent() == .end(trailers: nil))
        #expect(decoder.isAtMessageBoundary)
        #expect(try decoder.nextEvent() == nil)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func chunkedWithExtensionsAndTrailers() {
        let items = decodeRequests(
            "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value;flag\r\nhello\r\n"
                + "6 ; quoted=\"a \\\"b\\\" ;c\"\r\n world\r\n"
                + "A\r\n0123456789\r\n"
                + "0;last\r\nChecksum: abc\r\nX-Trailer:  two words \r\n\r\n")
        #expect(
            items == [
                head("POST", "/upload", [("Host", "h"), ("Transfer-Encoding", "chunked")]),
                .body(bytes("hello world0123456789")),
                .end([("Checksum", "abc"), ("X-Trailer", "two words")]),
            ])
    }

    @Test func chunkedWithoutTrailersEndsWithNil() throws {
        let items = decodeRequests(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(items.last == .end(nil))
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"))
        _ = try decoder.nextEvent()
        #expect(decoder.framing == .chunked)
    }

    @Test func pipelinedRequestsInOneBuffer() {
        let items = decodeRequests(
            "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok"
                + "PUT /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"
                + "GET /4 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(
            items == [
                head("GET", "/1", [("Host", "h")]), .end(nil),
                head("POST", "/2", [("Host", "h"), ("Content-Length", "2")]), .body(bytes("ok")), .end(nil),
                head("PUT", "/3", [("Host", "h"), ("Transfer-Encoding", "chunked")]), .body(bytes("x")), .end(nil),
                head("GET", "/4", [("Host", "h")]), .end(nil),
            ])
    }

    @Test func http10RequestNeedsNoHost() {
        let items = decodeRequests("GET / HTTP/1.0\r\nUser-Agent: old\r\n\r\n")
        #expect(items == [head("GET", "/", [("User-Agent", "old")], version: .http1_0), .end(nil)])
    }

    @Test func emptyLinesBeforeRequestLineAreIgnored() {
        let items = decodeRequests("\r\n\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(items == [head("GET", "/", [("Host", "h")]), .end(nil), head("GET", "/b", [("Host", "h")]), .end(nil)])
    }

    @Test func bareLFLineEndings() {
        let items = decodeRequests("POST / HTTP/1.1\nHost: h\nContent-Length: 1\n\nZ")
        #expect(items == [head("POST", "/", [("Host", "h"), ("Content-Length", "1")]), .body(bytes("Z")), .end(nil)])
    }

    @Test func requestTargetForms() {
        #expect(
            decodeRequests("GET http://Example.com:8080/p?q HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
                == [head("GET", "http://Example.com:8080/p?q", [("Host", "example.com:8080")]), .end(nil)])
        #expect(
            decodeRequests("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")
                == [head("OPTIONS", "*", [("Host", "h")]), .end(nil)])
        #expect(
            decodeRequests("GET /a/b?x=1&y=%20 HTTP/1.1\r\nHost: h\r\n\r\n")
                == [head("GET", "/a/b?x=1&y=%20", [("Host", "h")]), .end(nil)])
    }

    @Test func connectThenTunnelBytes() throws {
        let text =
            "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\u{16}\u{03}\u{01}GET / HTTP/1.1\r\n"
        let items = decodeRequests(text)
        #expect(
            items == [
                head("CONNECT", "example.com:443", [("Host", "example.com:443")]), .end(nil),
                .rest(bytes("\u{16}\u{03}\u{01}GET / HTTP/1.1\r\n")),
            ])
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\nabc"))
        guard case .head = try decoder.nextEvent() else { Issue.record("expected head"); return }
        #expect(decoder.framing == .none)
        #expect(try decoder.nextEvent() == .end(trailers: nil))
        #expect(decoder.framing == .tunnel)
        #expect(!decoder.isAtMessageBoundary)
        decoder.receive(bytes("def"))
        #expect(try decoder.nextEvent() == nil)
        #expect(decoder.bufferedByteCount == 6)
        #expect(decoder.takeBufferedBytes() == bytes("abcdef"))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func repeatedIdenticalContentLengthsAreOne() {
        let list = decodeRequests("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n\r\nab")
        #expect(list.dropFirst() == [.body(bytes("ab")), .end(nil)])
        let fields = decodeRequests("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab")
        #expect(fields.dropFirst() == [.body(bytes("ab")), .end(nil)])
        let zero = decodeRequests("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        #expect(zero.dropFirst() == [.end(nil)])
    }

    @Test func fieldValuesAreTrimmedAndKeepObsText() {
        let items = decodeAtEverySplit(
            RequestItemDecoder(),
            bytes("GET / HTTP/1.1\r\nHost: h\r\nX-A: \t padded value\t \r\nX-Empty:\r\nX-Utf8: caf") + [0xC3, 0xA9]
                + bytes("\r\n\r\n"))
        #expect(
            items == [
                head("GET", "/", [("Host", "h"), ("X-A", "padded value"), ("X-Empty", ""), ("X-Utf8", "café")]),
                .end(nil),
            ])
    }

    @Test func emptyHostIsAllowed() {
        #expect(decodeRequests("GET / HTTP/1.1\r\nHost:\r\n\r\n") == [head("GET", "/", [("Host", "")]), .end(nil)])
    }

    @Test func eofAtBoundaryEndsQuietly() throws {
        let items = decodeRequests("GET / HTTP/1.1\r\nHost: h\r\n\r\n\r\n", eof: true)
        #expect(items == [head("GET", "/", [("Host", "h")]), .end(nil)])
        var decoder = HTTP1RequestDecoder()
        decoder.receiveEOF()
        #expect(decoder.sawEOF)
        #expect(try decoder.nextEvent() == nil)
        decoder.receive(bytes("GET"))
        #expect(decoder.bufferedByteCount == 0, "bytes after EOF are dropped")
    }

    @Test func bodySlicesShareTheBuffer() throws {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab"))
        _ = try decoder.nextEvent()
        guard case .body(let first)? = try decoder.nextEvent() else { Issue.record("expected body"); return }
        #expect(Array(first) == bytes("ab"))
        #expect(try decoder.nextEvent() == nil)
        decoder.receive(bytes("cd"))
        #expect(try decoder.nextEvent() == .body(bytes("cd")[...]))
        #expect(try decoder.nextEvent() == .end(trailers: nil))
    }

    @Test func limitsAreInclusive() {
        let limits = HTTP1Limits(maxRequestLineLength: 16, maxHeaderSectionLength: 20, maxHeaderCount: 2)
        // "GET /23456789012 HTTP/1.1" is longer; "GET /2 HTTP/1.1" is 15 bytes, "GET /23 HTTP/1.1" 16.
        #expect(decodeRequests("GET /23 HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits).last == .end(nil))
        #expect(
            finalError(decodeRequests("GET /234 HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits))! == (
                "request-line-too-long", 414
            ))
        // Field lines "Host: h\r\n" (9) + "X: 123456\r\n" (11) = 20; one more byte is 21.
        #expect(decodeRequests("GET / HTTP/1.1\r\nHost: h\r\nX: 123456\r\n\r\n", limits: limits).last == .end(nil))
        #expect(
            finalError(decodeRequests("GET / HTTP/1.1\r\nHost: h\r\nX: 1234567\r\n\r\n", limits: limits))! == (
                "header-section-too-large", 431
            ))
        let counted = HTTP1Limits(maxHeaderCount: 2)
        #expect(decodeRequests("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\n\r\n", limits: counted).last == .end(nil))
        #expect(
            finalError(decodeRequests("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", limits: counted))! == (
                "too-many-header-fields", 431
            ))
    }
}
