/// Decides how a message body is delimited, from its head (RFC 9112 §6.1–6.3).
enum MessageFraming {
    /// The shape of a Transfer-Encoding list, as far as framing is concerned.
    enum TransferCodings: Equatable {
        case empty, chunkedOnly, chunkedFinalAfterOthers, chunkedRepeated, chunkedNotFinal, withoutChunked
    }

    static func transferCodings(_ headers: HTTPHeaders) -> TransferCodings {
        // A coding may carry parameters (`gzip;q=1`): only its name counts.
        let codings = headers.tokens(inField: "transfer-encoding").map { token -> Substring in
            let name = token.prefix { $0 != ";" }
            return name.drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" }
        }
        guard let last = codings.last else { return .empty }
        let chunkedCount = codings.count { $0 == "chunked" }
        if chunkedCount > 1 { return .chunkedRepeated }
        if chunkedCount == 1, last != "chunked" { return .chunkedNotFinal }
        if chunkedCount == 0 { return .withoutChunked }
        return codings.count == 1 ? .chunkedOnly : .chunkedFinalAfterOthers
    }

    /// The framing of a request body; throws the 400/501 the server should answer.
    static func request(
        method: MethodKind, version: HTTPVersion, fields: FramingFields, headers: HTTPHeaders
    ) throws(HTTP1Error) -> BodyFraming {
        // RFC 9110 §9.3.6: a CONNECT request has no content; what follows its head belongs to the tunnel.
        if method == .connect { return .none }
        if fields.hasTransferEncoding {
            // RFC 9112 §6.1: both fields at once is a smuggling attempt a proxy must not pass on.
            if fields.hasContentLength { throw .contentLengthWithTransferEncoding }
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty.
            if version == .http1_0 { throw .transferEncodingInHTTP10 }
            switch transferCodings(headers) {
            case .chunkedOnly: return .chunked
            case .empty: throw .invalidTransferEncoding
            // RFC 9112 §6.1: chunked MUST NOT be applied more than once.
            case .chunkedRepeated: throw .chunkedRepeated
            // RFC 9112 §6.3 item 4: chunked not final in a request → 400, the length cannot be known.
            case .chunkedNotFinal: throw .chunkedNotFinal
            // RFC 9112 §6.1: a coding the server does not understand → 501. This codec only undoes chunked.
            case .chunkedFinalAfterOthers, .withoutChunked: throw .unsupportedTransferCoding
            }
        }
        // RFC 9112 §6.3 item 6: a request with neither field has no body.
        if fields.hasContentLength { return .contentLength(try fields.contentLength()) }
        return .none
    }

    /// The framing of a response body to a request made with `method`; errors carry status 502.
    static func response(
        status: Int, version: HTTPVersion, method: MethodKind, fields: FramingFields, headers: HTTPHeaders
    ) throws(HTTP1Error) -> BodyFraming {
        // RFC 9110 §15.2.2: after 101 the connection speaks the upgraded protocol.
        if status == 101 { return .tunnel }
        // RFC 9112 §6.3 item 1: no body for HEAD responses, 1xx, 204 and 304, whatever the fields say.
        if method == .head || status < 200 || status == 204 || status == 304 { return .none }
        // RFC 9112 §6.3 item 2: a 2xx answer to CONNECT turns the connection into a tunnel.
        if method == .connect, status < 300 { return .tunnel }
        if fields.hasTransferEncoding {
            // RFC 9112 §6.3 item 3: TE with CL could be smuggling; a proxy must not forward it.
            if fields.hasContentLength { throw HTTP1Error.contentLengthWithTransferEncoding.asResponseError }
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty.
            if version == .http1_0 { throw HTTP1Error.transferEncodingInHTTP10.asResponseError }
            switch transferCodings(headers) {
            case .chunkedOnly, .chunkedFinalAfterOthers: return .chunked
            case .chunkedRepeated: throw HTTP1Error.chunkedRepeated.asResponseError
            // RFC 9112 §6.3 item 4: chunked not final in a response → read until the connection closes.
            case .chunkedNotFinal, .withoutChunked, .empty: return .closeDelimited
            }
        }
        // RFC 9112 §6.3 item 5: an invalid Content-Length in a response is an unrecoverable error.
        if fields.hasContentLength {
            do throws(HTTP1Error) {
                return .contentLength(try fields.contentLength())
            } catch {
                throw error.asResponseError
            }
        }
        // RFC 9112 §6.3 item 8: otherwise the body runs until the connection closes.
        return .closeDelimited
    }
}
