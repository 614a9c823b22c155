/// A peer sent something that is not valid HTTP/1.1 (or that this codec refuses to relay).
///
/// Errors are values with a stable `code` for the trace, the `status` a server or proxy should
/// answer with, and a one-sentence `description`. The request decoder reports 400, 414, 431, 501
/// or 505; the response decoder reports every error with status 502 (the proxy answers its client
/// with Bad Gateway), keeping the same `code`: compare codes, or use ``asResponseError``.
///
/// Modelled on swift-nio's `NIOHTTPDecoderError`: a struct with static constants, so new errors
/// can be added without breaking exhaustive switches in callers.
public struct HTTP1Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable machine identifier, e.g. `"content-length-with-transfer-encoding"`.
    public let code: String
    /// The status code to answer the peer with.
    public let status: Int
    /// One human sentence saying what was wrong.
    public let description: String

    private init(_ code: String, _ status: Int, _ description: String) {
        self.code = code
        self.status = status
        self.description = description
    }

    /// The same error as reported by the response decoder: same code, status 502.
    public var asResponseError: HTTP1Error { HTTP1Error(code, 502, description) }

    // MARK: Start line (RFC 9112 §3, §4)

    public static let invalidRequestLine = HTTP1Error(
        "invalid-request-line", 400, "The request-line is not `method SP request-target SP HTTP-version`.")
    public static let requestLineTooLong = HTTP1Error(
        "request-line-too-long", 414, "The request-line is longer than the configured limit.")
    public static let unsupportedVersion = HTTP1Error(
        "unsupported-http-version", 505, "The message uses an HTTP version other than HTTP/1.0 or HTTP/1.1.")
    public static let invalidStatusLine = HTTP1Error(
        "invalid-status-line", 502, "The status-line is not `HTTP-version SP 3DIGIT SP reason-phrase`.")
    public static let statusLineTooLong = HTTP1Error(
        "status-line-too-long", 502, "The status-line is longer than the configured limit.")
    public static let bareCR = HTTP1Error(
        "bare-cr", 400, "A CR not followed by LF appears in the message head.")

    // MARK: Field lines (RFC 9112 §5, RFC 9110 §5)

    public static let headerSectionTooLarge = HTTP1Error(
        "header-section-too-large", 431, "The header section is larger than the configured limit.")
    public static let tooManyHeaderFields = HTTP1Error(
        "too-many-header-fields", 431, "The header section has more field lines than the configured limit.")
    public static let invalidFieldName = HTTP1Error(
        "invalid-field-name", 400, "A field name is empty or contains a character that is not a token character.")
    public static let whitespaceBeforeColon = HTTP1Error(
        "whitespace-before-colon", 400, "A field line has whitespace between the field name and the colon.")
    public static let missingColon = HTTP1Error(
        "missing-colon", 400, "A field line has no colon.")
    public static let invalidFieldValue = HTTP1Error(
        "invalid-field-value", 400, "A field value contains a control character.")
    public static let obsoleteLineFolding = HTTP1Error(
        "obsolete-line-folding", 400, "A field line starts with whitespace (obsolete line folding).")

    /// Not a malformed head but a slow one: the client did not finish it within the proxy's
    /// header timeout (RFC 9110 §15.5.9, 408 Request Timeout).
    public static let headerTimeout = HTTP1Error(
        "header-timeout", 408, "The request head was not complete within the header timeout.")

    /// A request body that stopped arriving: no byte of it for the proxy's body timeout (408, as
    /// nginx's `client_body_timeout`).
    public static let bodyTimeout = HTTP1Error(
        "body-timeout", 408, "No byte of the request body arrived within the body timeout.")

    // MARK: Host and request-target (RFC 9112 §3.2)

    public static let missingHost = HTTP1Error(
        "missing-host", 400, "An HTTP/1.1 request has no Host header field.")
    public static let duplicateHost = HTTP1Error(
        "duplicate-host", 400, "The request has more than one Host header field.")
    public static let invalidHost = HTTP1Error(
        "invalid-host", 400, "The Host header field is not a valid `host [ \":\" port ]`.")
    public static let invalidRequestTarget = HTTP1Error(
        "invalid-request-target", 400, "The request-target is not in any of the four request-target forms.")
    public static let requestTargetFormMismatch = HTTP1Error(
        "request-target-form-mismatch", 400,
        "The request-target form does not fit the method (authority-form is only for CONNECT, * only for OPTIONS).")

    // MARK: Body framing (RFC 9112 §6)

    public static let contentLengthWithTransferEncoding = HTTP1Error(
        "content-length-with-transfer-encoding", 400,
        "The message has both Content-Length and Transfer-Encoding, a request smuggling risk.")
    public static let invalidContentLength = HTTP1Error(
        "invalid-content-length", 400, "A Content-Length value is not a non-negative decimal number that fits 63 bits.")
    public static let conflictingContentLength = HTTP1Error(
        "conflicting-content-length", 400, "The message has several differing Content-Length values.")
    public static let unsupportedTransferCoding = HTTP1Error(
        "unsupported-transfer-coding", 501, "The request uses a transfer coding other than chunked.")
    public static let chunkedNotFinal = HTTP1Error(
        "chunked-not-final", 400, "Transfer-Encoding lists chunked, but not as the final coding.")
    public static let chunkedRepeated = HTTP1Error(
        "chunked-repeated", 400, "Transfer-Encoding lists chunked more than once.")
    public static let invalidTransferEncoding = HTTP1Error(
        "invalid-transfer-encoding", 400, "Transfer-Encoding is present but lists no coding.")
    public static let transferEncodingInHTTP10 = HTTP1Error(
        "transfer-encoding-in-http10", 400, "An HTTP/1.0 message has a Transfer-Encoding header field.")

    // MARK: Chunked coding (RFC 9112 §7.1)

    public static let invalidChunkSize = HTTP1Error(
        "invalid-chunk-size", 400, "A chunk-size is not 1 to 16 hexadecimal digits fitting 63 bits.")
    public static let chunkLineTooLong = HTTP1Error(
        "chunk-line-too-long", 400, "A chunk-size line is longer than the configured limit.")
    public static let invalidChunkExtension = HTTP1Error(
        "invalid-chunk-extension", 400, "A chunk extension is not `;` token [ `=` token / quoted-string ].")
    public static let invalidChunkLineEnding = HTTP1Error(
        "invalid-chunk-line-ending", 400, "A chunk-size line does not end with CRLF.")
    public static let invalidChunkTerminator = HTTP1Error(
        "invalid-chunk-terminator", 400, "Chunk data is not followed by CRLF.")
    public static let trailerSectionTooLarge = HTTP1Error(
        "trailer-section-too-large", 431, "The trailer section is larger than the configured limit.")
    public static let tooManyTrailerFields = HTTP1Error(
        "too-many-trailer-fields", 431, "The trailer section has more field lines than the configured limit.")

    // MARK: Connection

    public static let incompleteMessage = HTTP1Error(
        "incomplete-message", 400, "The connection closed in the middle of a message.")
    public static let unsolicitedResponse = HTTP1Error(
        "unsolicited-response", 502, "Response bytes arrived while no request was waiting for a response.")
}
