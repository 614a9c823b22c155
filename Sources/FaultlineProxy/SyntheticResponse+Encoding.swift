import FaultlineHTTP1
public import FaultlineRules

extension SyntheticResponse {
    /// The response head as sent: the given fields, `Content-Length` for the body (any framing
    /// field the rule wrote is replaced, so the message stays well framed), and `Connection: close`
    /// when the connection ends after it.
    func head(closing: Bool, via: String?) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        for field in self.headers {
            let lowered = field.name.lowercased()
            if lowered == "content-length" || lowered == "transfer-encoding" || lowered == "connection" { continue }
            headers.add(name: field.name, value: field.value)
        }
        headers.add(name: "Content-Length", value: String(body.count))
        if closing { headers.add(name: "Connection", value: "close") }
        if let via { headers.add(name: "Via", value: "1.1 \(via)") }
        return HTTPResponseHead(
            version: .http1_1, status: status, reason: reason ?? ErrorResponse.reasonPhrase(status), headers: headers)
    }

    /// The complete response bytes.
    public func encode(closing: Bool, via: String? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + body.count)
        HTTP1Encoder.encode(head(closing: closing, via: via), into: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }
}
