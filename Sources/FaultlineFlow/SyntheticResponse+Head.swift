public import FaultlineHTTP1
public import FaultlineRules

extension SyntheticResponse {
    /// The response head as the flow sends it: the rule's fields without framing or connection
    /// fields (the framing layer adds those for its protocol, from the body length), and the
    /// standard reason phrase when the rule gave none.
    public var head: HTTPResponseHead {
        var headers = HTTPHeaders()
        for field in self.headers {
            let lowered = field.name.lowercased()
            if lowered == "content-length" || lowered == "transfer-encoding" || lowered == "connection" { continue }
            headers.add(name: field.name, value: field.value)
        }
        return HTTPResponseHead(
            version: .http1_1, status: status, reason: reason ?? ErrorResponse.reasonPhrase(status), headers: headers)
    }
}
