import Testing

@testable import FaultlineHTTP1

@Suite struct ResponseDecoderTests {
    private func head(_ status: Int, _ reason: String, _ headers: HTTPHeaders, version: HTTPVersion = .http1_1) -> Item
    {
        .responseHead(HTTPResponseHead(version: version, status: status, reason: reason, headers: headers))
    }

    @Test func okWithContentLength() {
        let items = decodeResponses("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
        #expect(
            items == [
                head(200, "OK", [("Content-Length", "5"), ("Content-Type", "text/plain")]), .body(bytes("hello")),
                .end(nil),
            ])
    }

    @Test func chunkedWithTrailers() {
        let items = decodeResponses(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=\"y\"\r\nWiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n"
        )
        #expect(
            items == [
                head(200, "OK", [("Transfer-Encoding", "chunked")]), .body(bytes("Wikipedia")),
                .end([("Expires", "never")]),
            ])
    }

    @Test func continueThenFinalResponse() throws {
        let items = decodeResponses(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
            to: ["POST"])
        #expect(
            items == [
                .interim(HTTPResponseHead(status: 100, reason: "Continue")),
                .interim(HTTPResponseHead(status: 103, reason: "Early Hints", headers: [("Link", "</a.css>")])),
                head(201, "Created", [("Content-Length", "2")]), .body(bytes("ok")), .end(nil),
            ])
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "POST")
        decoder.receive(bytes("HTTP/1.1 100 Continue\r\n\r\n"))
        guard case .interim? = try decoder.nextEvent() else { Issue.record("expected interim"); return }
        #expect(!decoder.isAtMessageBoundary, "the final response is still due")
        #expect(decoder.expectedResponseCount == 1)
    }

    @Test func headResponseHasNoBody() {
        let items = decodeResponses(
            "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
            to: ["HEAD", "GET"])
        #expect(
            items == [
                head(200, "OK", [("Content-Length", "1234")]), .end(nil),
                head(200, "OK", [("Content-Length", "1")]), .body(bytes("x")), .end(nil),
            ])
    }

    @Test(arguments: [204, 304])
    func noContentAndNotModifiedHaveNoBody(status: Int) {
        let items = decodeResponses(
            "HTTP/1.1 \(status) X\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            to: ["GET", "GET"])
        #expect(
            items == [
                head(status, "X", [("Content-Length", "10"), ("Transfer-Encoding", "chunked")]), .end(nil),
                head(200, "OK", [("Content-Length", "0")]), .end(nil),
            ])
    }

    @Test func closeDelimitedBodyEndsAtEOF() throws {
        let items = decodeResponses("HTTP/1.0 200 OK\r\nServer: old\r\n\r\nall of this is body", eof: true)
        #expect(
            items == [
                head(200, "OK", [("Server", "old")], version: .http1_0), .body(bytes("all of this is body")), .end(nil),
            ])
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "GET")
        decoder.receive(bytes("HTTP/1.1 200 OK\r\n\r\nabc"))
        _ = try decoder.nextEvent()
        #expect(decoder.framing == .closeDelimited)
        #expect(try decoder.nextEvent() == .body(bytes("abc")[...]))
        #expect(try decoder.nextEvent() == nil)
        decoder.receiveEOF()
        #expect(try decoder.nextEvent() == .end(trailers: nil))
        #expect(try decoder.nextEvent() == nil)
    }

    @Test func transferCodingsOtherThanFinalChunked() {
        let gzip = decodeResponses("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw", eof: true)
        #expect(gzip.dropFirst() == [.body(bytes("raw")), .end(nil)])
        let chunkedLast = decodeResponses(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nraw\r\n0\r\n\r\n")
        #expect(chunkedLast.dropFirst() == [.body(bytes("raw")), .end(nil)])
        let chunkedFirst = decodeResponses(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n3\r\n", eof: true)
        #expect(chunkedFirst.dropFirst() == [.body(bytes("3\r\n")), .end(nil)])
    }

    @Test func connectSuccessStartsTunnel() throws {
        let items = decodeResponses(
            "HTTP/1.1 200 Connection Established\r\n\r\n\u{16}\u{03}\u{03}server hello", to: ["CONNECT"])
        #expect(
            items == [
                head(200, "Connection Established", []), .end(nil), .rest(bytes("\u{16}\u{03}\u{03}server hello")),
            ])
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "CONNECT")
        decoder.receive(bytes("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\ntunnel"))
        _ = try decoder.nextEvent()
        #expect(decoder.framing == .tunnel)
        #expect(try decoder.nextEvent() == .end(trailers: nil))
        #expect(try decoder.nextEvent() == nil)
        #expect(!decoder.isAtMessageBoundary)
        #expect(decoder.takeBufferedBytes() == bytes("tunnel"))
    }

    @Test func connectRefusalIsAnOrdinaryResponse() {
        let items = decodeResponses(
            "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 4\r\n\r\nnope", to: ["CONNECT"])
        #expect(
            items == [
                head(407, "Proxy Authentication Required", [("Content-Length", "4")]), .body(bytes("nope")), .end(nil),
            ])
    }

    @Test func switchingProtocolsStartsTunnel() throws {
        let items = decodeResponses(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{05}hello")
        #expect(
            items == [
                head(101, "Switching Protocols", [("Upgrade", "websocket"), ("Connection", "Upgrade")]), .end(nil),
                .rest(bytes("\u{81}\u{05}hello")),
            ])
    }

    @Test func statusLineVariants() {
        #expect(
            decodeResponses("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n") == [
                head(200, "", [("Content-Length", "0")]), .end(nil),
            ])
        #expect(
            decodeResponses("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n") == [
                head(200, "", [("Content-Length", "0")]), .end(nil),
            ])
        #expect(
            decodeResponses("HTTP/1.1 599 Odd \t reason\r\nContent-Length: 0\r\n\r\n")
                == [head(599, "Odd \t reason", [("Content-Length", "0")]), .end(nil)])
        #expect(
            decodeResponses("HTTP/1.1 200 OK\nContent-Length: 0\n\n") == [
                head(200, "OK", [("Content-Length", "0")]), .end(nil),
            ])
    }

    @Test func pipelinedResponses() {
        let items = decodeResponses(
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
            to: ["GET", "GET"])
        #expect(
            items == [
                head(200, "OK", [("Content-Length", "1")]), .body(bytes("a")), .end(nil),
                head(404, "Not Found", [("Content-Length", "0")]), .end(nil),
            ])
    }

    @Test func eofWithResponsesStillExpected() throws {
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "GET")
        decoder.receiveEOF()
        #expect(try decoder.nextEvent() == nil)
        #expect(decoder.sawEOF)
        #expect(decoder.expectedResponseCount == 1)
    }

    @Test func nothingExpectedAndNothingBuffered() throws {
        var decoder = HTTP1ResponseDecoder()
        #expect(try decoder.nextEvent() == nil)
        #expect(decoder.isAtMessageBoundary)
    }
}
