import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Foundation

/// Writes a capture (or a plain trace) as a HAR 1.2 document
/// (http://www.softwareishard.com/blog/har-12-spec/), for HAR viewers and the tools that import HAR.
///
/// One entry per exchange that got a response (the upstream's or one the proxy made), in the
/// order the requests arrived; `CONNECT` tunnels are left out. An entry's request is the one
/// that went upstream (after routing and request rules: it carries the body), else the client's.
/// Its response is the upstream's, or, when the proxy answered, what the client got (a
/// capture keeps no body of the answers the proxy makes). Every value is written as the capture
/// holds it: pseudonyms and fingerprints stay, nothing is decoded or replaced. Faultline's own
/// facts go in `_faultline` members, which HAR 1.2 reserves for custom fields ("Custom Fields").
public enum HARExporter {
    /// The document as UTF-8 JSON, indented by two spaces.
    public static func har(from capture: Capture) -> [UInt8] {
        var bytes = document(from: capture).jsonBytes(indent: 2)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The exchanges that become entries.
    public static func exportedExchanges(of capture: Capture) -> [CapturedExchange] {
        capture.exchanges.filter { ($0.response != nil || $0.delivered != nil) && $0.clientRequest.method != "CONNECT" }
    }

    static func document(from capture: Capture) -> JSONValue {
        .fields([
            (
                "log",
                .fields([
                    ("version", .string("1.2")),
                    (
                        "creator",
                        .fields([("name", .string(creatorName)), ("version", .string(FaultlineVersion.string))])
                    ),
                    ("pages", .array([])),
                    ("entries", .array(exportedExchanges(of: capture).map { entry($0, capture: capture) })),
                    ("comment", .string(logComment(capture))),
                    (
                        "_faultline",
                        .fields([("secrets", .string(capture.secrets.rawValue)), ("bodies", .bool(capture.hasBodies))])
                    ),
                ])
            )
        ])
    }

    /// `creator.name`; the importer reads `_faultline` members only from files that name it
    /// (HAR 1.2: parsers ignore custom fields of files written by other tools).
    static let creatorName = "faultline"

    static func logComment(_ capture: Capture) -> String {
        switch capture.secrets {
        case .pseudonyms:
            "Exported by faultline from a capture. Secrets are pseudonyms flp.KIND.LINEAGE.N (one name per secret "
                + "throughout the file); no secret is written in clear."
        case .kept:
            "Exported by faultline from a capture made with raw secrets (--capture-secrets keep, or an imported HAR): "
                + "this file holds credentials in clear; do not share it."
        case .fingerprints:
            "Exported by faultline from a plain trace. Secrets are keyed fingerprints fp:...; bodies were not "
                + "captured (run faultline run --capture to keep them)."
        }
    }

    static func entry(_ exchange: CapturedExchange, capture: Capture) -> JSONValue {
        let timings = HARTimings(exchange)
        let request = exchange.upstreamRequest ?? exchange.clientRequest
        var faultline: [(String, JSONValue?)] = [
            ("flow", .int(exchange.flow)), ("connection", exchange.connection.map(JSONValue.int)),
            ("seq", .int(Int64(clamping: exchange.received.seq))), ("role", exchange.role.map(JSONValue.string)),
            ("lineage", exchange.lineage.map(JSONValue.string)),
            ("credentials", exchange.credentials.isEmpty ? nil : .array(exchange.credentials.map(JSONValue.string))),
            ("duplicateOf", exchange.duplicateOf.map(JSONValue.int)),
        ]
        if exchange.synthetic {
            faultline.append(("synthetic", .bool(true)))
            // The upstream had answered before the proxy did (its body broke): the entry shows the
            // proxy's answer, this says what the upstream's head was.
            if let upstream = exchange.response?.status { faultline.append(("upstreamStatus", .int(Int64(upstream)))) }
        } else if let delivered = exchange.deliveredStatus, let upstream = exchange.response?.status,
            delivered != upstream
        {
            // A response rule changed what the client got; the entry shows the upstream's.
            faultline.append(("deliveredStatus", .int(Int64(delivered))))
        }
        if request.body?.truncated == true { faultline.append(("requestBodyTruncated", .bool(true))) }
        if !exchange.synthetic, exchange.response?.body?.truncated == true {
            faultline.append(("responseBodyTruncated", .bool(true)))
        }
        return .fields([
            ("startedDateTime", .string(exchange.received.wall)),
            ("time", HARTimings.milliseconds(timings.total)),
            ("request", self.request(request, exchange: exchange, hasBodies: capture.hasBodies)),
            ("response", response(exchange, hasBodies: capture.hasBodies)),
            ("cache", .fields([])),
            ("timings", timings.json),
            ("connection", exchange.connection.map { JSONValue.string(String($0)) }),
            ("_faultline", .fields(faultline)),
        ])
    }

    static func request(_ request: CapturedRequest, exchange: CapturedExchange, hasBodies: Bool) -> JSONValue {
        let sentLength = request.body?.length ?? exchange.forwardedBody?.length
        var postData: JSONValue?
        var comment: String?
        if let body = request.body, body.length > 0 {
            let mimeType = JSONValue.string(request.headers.first(name: "content-type") ?? "")
            let truncation = truncationNote(body)
            if let text = body.text {
                postData = .fields([
                    ("mimeType", mimeType), ("text", .string(text)), ("comment", truncation.map(JSONValue.string)),
                ])
            } else {
                // HAR 1.2's postData has no `encoding` (content has): the text stays empty and the
                // bytes go in a custom field, which the comment points to.
                let note =
                    "not UTF-8 text: the body is base64 in _faultline.bodyBase64" + (truncation.map { "; \($0)" } ?? "")
                postData = .fields([
                    ("mimeType", mimeType), ("text", .string("")), ("comment", .string(note)),
                    ("_faultline", .fields([("bodyBase64", .string(Data(body.bytes).base64EncodedString()))])),
                ])
            }
        } else if !hasBodies, let sentLength, sentLength > 0 {
            comment = notCapturedNote
        }
        let (headers, lengthNote) = lengthFitted(request.headers, to: request.body)
        if let lengthNote { comment = [comment, lengthNote].compactMap(\.self).joined(separator: "; ") }
        return .fields([
            ("method", .string(request.method)),
            ("url", .string(request.url.description)),
            ("httpVersion", .string(request.httpVersion)),
            ("cookies", .array(HARCookie.requestCookies(request.headers).map(\.json))),
            ("headers", .nameValueList(headers.map { (name: $0.name, value: $0.value) })),
            ("queryString", .nameValueList(FormURLEncoding.pairs(request.url.query ?? ""))),
            ("postData", postData),
            ("headersSize", .int(-1)),
            // Unknown (-1) only for a request that never went upstream: the trace has no length for it.
            ("bodySize", .int(sentLength ?? (exchange.upstreamRequest == nil ? -1 : 0))),
            ("comment", comment.map(JSONValue.string)),
        ])
    }

    static func response(_ exchange: CapturedExchange, hasBodies: Bool) -> JSONValue {
        guard !exchange.synthetic, let response = exchange.response else { return answerOfTheProxy(exchange) }
        let body = response.body
        let size = body?.length ?? exchange.deliveredBody?.length ?? -1
        var content: [(String, JSONValue?)] = [
            ("size", .int(size)), ("mimeType", .string(response.headers.first(name: "content-type") ?? "")),
        ]
        if let body {
            let contentEncoding = response.headers.first(name: "content-encoding").flatMap {
                $0.lowercased() == "identity" ? nil : $0
            }
            var notes = [truncationNote(body)]
            if let text = body.text, contentEncoding == nil {
                content.append(("text", .string(text)))
            } else {
                content.append(("text", .string(Data(body.bytes).base64EncodedString())))
                content.append(("encoding", .string("base64")))
            }
            if let contentEncoding {
                // HAR 1.2 wants content.text decoded; a capture keeps the bytes as they came, so
                // they are still under their Content-Encoding, which the entry keeps and says.
                notes.append("the body as received, still \(contentEncoding)-encoded (Content-Encoding)")
                content.append(("_faultline", .fields([("contentEncoding", .string(contentEncoding))])))
            }
            let comment = notes.compactMap(\.self).joined(separator: "; ")
            if !comment.isEmpty { content.append(("comment", .string(comment))) }
        } else if !hasBodies {
            content.append(("comment", .string(notCapturedNote)))
        }
        let (headers, lengthNote) = lengthFitted(response.headers, to: body)
        return .fields([
            ("status", .int(Int64(response.status))),
            ("statusText", .string(response.reason)),
            ("httpVersion", .string(response.httpVersion)),
            ("cookies", .array(HARCookie.responseCookies(response.headers).map(\.json))),
            ("headers", .nameValueList(headers.map { (name: $0.name, value: $0.value) })),
            ("content", .fields(content)),
            ("redirectURL", .string(response.headers.first(name: "location") ?? "")),
            ("headersSize", .int(-1)),
            ("bodySize", .int(size)),
            ("comment", lengthNote.map(JSONValue.string)),
        ])
    }

    /// The headers with `Content-Length` set to the length of the body the entry holds, when a
    /// capture's pseudonyms made that body longer or shorter than the one on the wire: a tool that
    /// sends the entry again (or checks it) must find the two in agreement. `bodySize` keeps the
    /// length on the wire, and the note says so. A cut body keeps its header: it is not all there.
    static func lengthFitted(_ headers: HTTPHeaders, to body: CapturedContent?) -> (HTTPHeaders, note: String?) {
        guard let body, !body.truncated, let declared = headers.first(name: "content-length"),
            declared != String(body.bytes.count)
        else { return (headers, nil) }
        var fitted = headers
        fitted.replaceOrAdd(name: "Content-Length", value: String(body.bytes.count))
        let note =
            "Content-Length is the length of the body here (\(body.bytes.count) bytes, secrets as pseudonyms); "
            + "it was \(declared) on the wire (bodySize)"
        return (fitted, note)
    }

    /// A response the proxy made (a rule's answer, an error page): its status and length are all
    /// the trace has of it.
    static func answerOfTheProxy(_ exchange: CapturedExchange) -> JSONValue {
        let status = exchange.deliveredStatus ?? 0
        let size = exchange.deliveredBody?.length ?? -1
        let note = "made by faultline (a rule's answer or an error page): its head and body are not captured"
        return .fields([
            ("status", .int(Int64(status))),
            ("statusText", .string(HTTPReasonPhrase.standard(for: status))),
            ("httpVersion", .string(exchange.clientRequest.httpVersion)),
            ("cookies", .array([])),
            ("headers", .array([])),
            ("content", .fields([("size", .int(size)), ("mimeType", .string("")), ("comment", .string(note))])),
            ("redirectURL", .string("")),
            ("headersSize", .int(-1)),
            ("bodySize", .int(size)),
            ("comment", .string(note)),
        ])
    }

    static let notCapturedNote = "body not captured (a plain trace keeps only its length)"

    /// "first N of M bytes" for a body cut at the capture's limit.
    static func truncationNote(_ body: CapturedContent) -> String? {
        body.truncated
            ? "truncated: the first \(body.bytes.count) of \(body.length) bytes (the capture's body limit)" : nil
    }
}
