import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
public import FaultlineTrace

/// What a flow keeps of its upstream exchange when the trace is a capture: the request body as
/// it went upstream and the response body as the upstream sent it, each up to the capture's body
/// limit. A class so the machine carries one pointer, not two buffers, when capture is off.
final class FlowCapture {
    var request: CapturedBodyBuffer
    var response: CapturedBodyBuffer
    var responseContentType: String?
    /// The lineage the response's new credentials belong to: the one a login starts (numbered
    /// when its 2xx head arrives), else the request's. Written as `lineage` on the response's
    /// events, so a capture names their pseudonyms after it.
    var issuingLineage: LineageID?
    var reserved: LineageID?
    /// A `route` or request `rewrite` changed the request after `request.received` showed it.
    var requestEdited = false

    init(limit: Int) {
        request = CapturedBodyBuffer(limit: limit)
        response = CapturedBodyBuffer(limit: limit)
    }
}

/// The capture's trace fields: `request` and `content` on `request.forwarded`, `lineage` on
/// `response.received`, and `response.body` when the upstream's response ends.
extension FlowMachine {
    /// `request.forwarded`'s capture fields: the request as it went upstream when rules changed it
    /// (else `request.received` already shows it: a line a request saved), and its body.
    func captureForwardedFields(into fields: inout [TraceField]) {
        guard let capture else { return }
        if capture.requestEdited {
            fields.append(
                .object(
                    "request",
                    [
                        .string("method", outbound.method), .target("url", request.endpoint.origin + outbound.target),
                        .headers("headers", outbound.headers.map { (name: $0.name, value: $0.value) }),
                    ]))
        }
        if capture.request.length > 0 {
            fields.append(
                .content("content", capture.request.body(contentType: outbound.headers.first(name: "content-type"))))
        }
    }

    /// At the upstream's head: which lineage the response's credentials join. A 2xx answer to a
    /// login starts the lineage the decision `reserved` for it (`reservesLineage`).
    mutating func captureResponseHead(_ head: HTTPResponseHead, reserved: LineageID?) {
        guard let capture else { return }
        capture.responseContentType = head.headers.first(name: "content-type")
        if let reserved {
            capture.reserved = reserved
            capture.issuingLineage = reserved
        } else {
            capture.issuingLineage = decision?.lineage
        }
    }

    func captureResponseBody(_ bytes: ArraySlice<UInt8>) {
        capture?.response.append(bytes)
    }

    /// `response.body`: the upstream's whole response body (up to the limit) and its trailers.
    func traceCapturedResponse(trailers: HTTPHeaders?, _ output: inout FlowOutput) {
        guard let capture else { return }
        var fields: [TraceField] = []
        if let lineage = capture.issuingLineage { fields.append(.string("lineage", lineage.description)) }
        fields.append(.content("content", capture.response.body(contentType: capture.responseContentType)))
        if let trailers, !trailers.isEmpty {
            fields.append(.headers("trailers", trailers.map { (name: $0.name, value: $0.value) }))
        }
        if let duplicateOf { fields.append(.int("duplicate_of", duplicateOf.rawValue)) }
        output.trace(id, .responseBody, fields)
    }
}

extension TraceEventKind {
    /// A capture's record of the upstream's response body (`content`) and trailers.
    public static let responseBody: TraceEventKind = "response.body"
}
