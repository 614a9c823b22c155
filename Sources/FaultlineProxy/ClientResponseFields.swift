import FaultlineFlow
import FaultlineHTTP1

/// The header fields of a response as the client gets it, whatever protocol carries it: the
/// upstream's fields without the hop-by-hop ones (RFC 9110 §7.6.1), and Content-Length as the
/// flow states the body. Each session adds its own framing fields and Via after these.
enum ClientResponseFields {
    static func make(from headers: HTTPHeaders, length: FlowBodyLength) -> HTTPHeaders {
        var fields = HopByHopHeaders.removing(from: headers)
        switch length {
        case .none:
            // A response without a body still states the representation's length (HEAD, 304):
            // pass the field on unchanged (RFC 9110 §8.6).
            if let length = headers.first(name: "content-length") { fields.add(name: "Content-Length", value: length) }
        case .known(let length):
            fields.add(name: "Content-Length", value: String(length))
        case .unknown:
            break
        }
        return fields
    }
}
