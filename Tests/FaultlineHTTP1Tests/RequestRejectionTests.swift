import Testing

@testable import FaultlineHTTP1

/// A request the decoder must refuse, with the code and status it must report.
struct Rejection: CustomTestStringConvertible, Sendable {
    var input: String
    var code: String
    var status: Int
    var eof = false
    var limits = HTTP1Limits.default

    var testDescription: String { "\(code): \(input.prefix(60).debugDescription)" }
}

private let host = "Host: h\r\n"

@Suite struct RequestRejectionTests {
    static let requestLine: [Rejection] = [
        Rejection(input: "G@T / HTTP/1.1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET  / HTTP/1.1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: " GET / HTTP/1.1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET / HTTP/1.1 \r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET /a\tb HTTP/1.1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET /\u{7F} HTTP/1.1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET / http/1.1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET / HTTP/1\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET / HTTP/1.10\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "GET /\r\n\r\n", code: "invalid-request-line", status: 400),
        Rejection(input: "\u{16}\u{03}\u{01}\u{02}\u{00}", code: "invalid-request-line", status: 400),
        Rejection(input: "GET / HTTP/2.0\r\n\r\n", code: "unsupported-http-version", status: 505),
        Rejection(input: "GET / HTTP/1.2\r\n\r\n", code: "unsupported-http-version", status: 505),
        Rejection(input: "GET / HTTP/0.9\r\n\r\n", code: "unsupported-http-version", status: 505),
        Rejection(input: "GE\rT / HTTP/1.1\r\n\r\n", code: "bare-cr", status: 400),
        Rejection(input: "GET /\r HTTP/1.1\r\n\r\n", code: "bare-cr", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\r\n\r\n", code: "bare-cr", status: 400),
    ]

    static let fields: [Rejection] = [
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: 1\rX-B: 2\r\n\r\n", code: "bare-cr", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: 1\r\r\n\r\n", code: "bare-cr", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A : 1\r\n\r\n", code: "whitespace-before-colon", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A\t: 1\r\n\r\n", code: "whitespace-before-colon", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host): 1\r\n\r\n", code: "invalid-field-name", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X@A: 1\r\n\r\n", code: "invalid-field-name", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X A: 1\r\n\r\n", code: "invalid-field-name", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A\r\n\r\n", code: "missing-colon", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: a\u{0}b\r\n\r\n", code: "invalid-field-value", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: a\u{7F}\r\n\r\n", code: "invalid-field-value", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: a\u{1B}\r\n\r\n", code: "invalid-field-value", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: a\r\n b\r\n\r\n", code: "obsolete-line-folding", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n\(host)X-A: a\r\n\tb\r\n\r\n", code: "obsolete-line-folding", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\n \(host)\r\n", code: "obsolete-line-folding", status: 400),
    ]

    static let hostAndTarget: [Rejection] = [
        Rejection(input: "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", code: "missing-host", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", code: "duplicate-host", status: 400),
        Rejection(input: "GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", code: "duplicate-host", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", code: "invalid-host", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\nHost: a:99999\r\n\r\n", code: "invalid-host", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n", code: "invalid-host", status: 400),
        Rejection(input: "GET / HTTP/1.1\r\nHost: [zz::1]\r\n\r\n", code: "invalid-host", status: 400),
        Rejection(input: "CONNECT / HTTP/1.1\r\n\(host)\r\n", code: "request-target-form-mismatch", status: 400),
        Rejection(
            input: "CONNECT http://a/ HTTP/1.1\r\n\(host)\r\n", code: "request-target-form-mismatch", status: 400),
        Rejection(input: "CONNECT example.com HTTP/1.1\r\n\(host)\r\n", code: "invalid-request-target", status: 400),
        Rejection(
            input: "GET example.com:443 HTTP/1.1\r\n\(host)\r\n", code: "request-target-form-mismatch", status: 400),
        Rejection(input: "GET * HTTP/1.1\r\n\(host)\r\n", code: "request-target-form-mismatch", status: 400),
        Rejection(input: "GET foo HTTP/1.1\r\n\(host)\r\n", code: "invalid-request-target", status: 400),
        Rejection(input: "GET /a#frag HTTP/1.1\r\n\(host)\r\n", code: "invalid-request-target", status: 400),
        Rejection(input: "GET http://user@h/ HTTP/1.1\r\n\(host)\r\n", code: "invalid-request-target", status: 400),
        Rejection(input: "GET http:///p HTTP/1.1\r\n\(host)\r\n", code: "invalid-request-target", status: 400),
    ]

    static let framing: [Rejection] = [
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            code: "content-length-with-transfer-encoding", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
            code: "content-length-with-transfer-encoding", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: abc\r\n\r\n", code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: -1\r\n\r\n", code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: +1\r\n\r\n", code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: 1 2\r\n\r\n", code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length:\r\n\r\n", code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: 2,\r\n\r\n", code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: 9223372036854775808\r\n\r\n",
            code: "invalid-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: 5, 6\r\n\r\n", code: "conflicting-content-length",
            status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
            code: "conflicting-content-length", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: gzip\r\n\r\n", code: "unsupported-transfer-coding",
            status: 501),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n",
            code: "unsupported-transfer-coding", status: 501),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, chunked\r\n\r\n",
            code: "chunked-repeated", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            code: "chunked-repeated", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, gzip\r\n\r\n",
            code: "chunked-not-final", status: 400),
        Rejection(
            input: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: ,\r\n\r\n", code: "invalid-transfer-encoding",
            status: 400),
        Rejection(
            input: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", code: "transfer-encoding-in-http10",
            status: 400),
    ]

    static let chunked: [Rejection] = {
        let start = "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n"
        return [
            Rejection(input: start + "zz\r\n", code: "invalid-chunk-size", status: 400),
            Rejection(input: start + "\r\n", code: "invalid-chunk-size", status: 400),
            Rejection(input: start + "-1\r\n", code: "invalid-chunk-size", status: 400),
            Rejection(input: start + "5x\r\n", code: "invalid-chunk-size", status: 400),
            Rejection(input: start + "00000000000000001\r\n", code: "invalid-chunk-size", status: 400),
            Rejection(input: start + "8000000000000000\r\n", code: "invalid-chunk-size", status: 400),
            Rejection(input: start + "5 \r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5;\r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5;=a\r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5;a=\r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5;a=\"x\r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5;a=b c\r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5;a\u{0}\r\n", code: "invalid-chunk-extension", status: 400),
            Rejection(input: start + "5\nhello\r\n", code: "invalid-chunk-line-ending", status: 400),
            Rejection(input: start + "5\r\nhelloXX", code: "invalid-chunk-terminator", status: 400),
            Rejection(input: start + "5\r\nhello\rX", code: "invalid-chunk-terminator", status: 400),
            Rejection(input: start + "5\r\nhello\n0\r\n\r\n", code: "invalid-chunk-terminator", status: 400),
            Rejection(input: start + "5\r\nhello!!\r\n", code: "invalid-chunk-terminator", status: 400),
            Rejection(
                input: start + "5;" + String(repeating: "a", count: 40) + "\r\n", code: "chunk-line-too-long",
                status: 400,
                limits: HTTP1Limits(maxChunkLineLength: 32)),
            Rejection(
                input: start + "0\r\nX: " + String(repeating: "a", count: 40) + "\r\n\r\n",
                code: "trailer-section-too-large", status: 431, limits: HTTP1Limits(maxTrailerSectionLength: 32)),
            Rejection(
                input: start + "0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", code: "too-many-trailer-fields", status: 431,
                limits: HTTP1Limits(maxHeaderCount: 2)),
            Rejection(input: start + "0\r\nBad Name: 1\r\n\r\n", code: "invalid-field-name", status: 400),
            Rejection(input: start + "0\r\nX: 1\r\n folded\r\n\r\n", code: "obsolete-line-folding", status: 400),
        ]
    }()

    static let truncated: [Rejection] = [
        Rejection(input: "GET / HTTP/1.1\r\nHost: h\r\n", code: "incomplete-message", status: 400, eof: true),
        Rejection(input: "GET / HT", code: "incomplete-message", status: 400, eof: true),
        Rejection(
            input: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabc", code: "incomplete-message",
            status: 400, eof: true),
        Rejection(
            input: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            code: "incomplete-message", status: 400, eof: true),
        Rejection(
            input: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n",
            code: "incomplete-message", status: 400, eof: true),
    ]

    @Test(arguments: requestLine + fields + hostAndTarget + framing + chunked + truncated)
    func rejected(_ rejection: Rejection) throws {
        let items = decodeAtEverySplit(
            RequestItemDecoder(limits: rejection.limits), bytes(rejection.input), eof: rejection.eof)
        let error = try #require(finalError(items))
        #expect(error.code == rejection.code)
        #expect(error.status == rejection.status)
    }

    @Test func errorsMatchTheirConstants() throws {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"))
        #expect(throws: HTTP1Error.contentLengthWithTransferEncoding) { try decoder.nextEvent() }
        #expect(throws: HTTP1Error.contentLengthWithTransferEncoding) { try decoder.nextEvent() }
        let buffered = decoder.bufferedByteCount
        #expect(buffered > 0)
        decoder.receive(bytes("more"))
        #expect(decoder.bufferedByteCount == buffered, "a failed decoder drops new bytes")
        #expect(!decoder.isAtMessageBoundary)
    }

    @Test func longRequestLineIsRefusedBeforeItEnds() {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("GET /"))
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        var fed = 5
        var caught: HTTP1Error?
        while caught == nil, fed < 20_000 {
            decoder.receive(piece)
            fed += piece.count
            do { _ = try decoder.nextEvent() } catch { caught = error }
        }
        #expect(caught == .requestLineTooLong)
        #expect(fed <= 8192 + 1000, "detected within one piece of the limit")
    }

    @Test func longHeaderSectionIsRefusedBeforeItEnds() {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("GET / HTTP/1.1\r\nHost: h\r\nX-Long: "))
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
        var caught: HTTP1Error?
        var fed = 0
        while caught == nil, fed < 200_000 {
            decoder.receive(piece)
            fed += piece.count
            do { _ = try decoder.nextEvent() } catch { caught = error }
        }
        #expect(caught == .headerSectionTooLarge)
        #expect(fed <= 65536 + 4096)
    }

    @Test func tooManyFieldsAreRefusedBeforeTheHeadEnds() {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("GET / HTTP/1.1\r\nHost: h\r\n"))
        var caught: HTTP1Error?
        for index in 0..<200 where caught == nil {
            decoder.receive(bytes("X-\(index): v\r\n"))
            do { _ = try decoder.nextEvent() } catch { caught = error }
        }
        #expect(caught == .tooManyHeaderFields)
    }
}
