import FaultlineCapture
import FaultlineHTTP1
import FaultlineTrace
import Foundation

/// The recorded secrets that recorded responses handed out (a login's tokens, a session cookie):
/// a replay gives the client fresh values in their place and reads them back as the recorded ones.
/// Every other secret in a recorded request is the client's own (a password) and matches whatever
/// the client sends in that place.
struct IssuedSecrets {
    let values: Set<String>
    /// Per recorded flow, the issued values its response carries.
    let byFlow: [Int64: [String]]

    init(capture: Capture, policy: RedactionPolicy) {
        var all = Set<String>()
        var byFlow: [Int64: [String]] = [:]
        for exchange in capture.exchanges {
            guard let response = exchange.response else { continue }
            var found: [String] = []
            func add(_ value: String) {
                if !value.isEmpty, !found.contains(value) { found.append(value) }
            }
            for field in response.headers {
                PseudonymScanner.pseudonyms(in: field.value.utf8).forEach(add)
                let name = field.name.lowercased()
                if name == "set-cookie", let pair = field.value.split(separator: ";").first,
                    let equals = pair.firstIndex(of: "=")
                {
                    add(pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
                } else if policy.secretHeaderNames.contains(name), !["authorization", "proxy-authorization", "cookie"].contains(name) {
                    add(field.value.trimmingCharacters(in: .whitespaces))
                }
            }
            if let body = response.body {
                PseudonymScanner.pseudonyms(in: body.bytes).forEach(add)
                let structured = StructuredBody(body.bytes, contentType: response.headers.first(name: "content-type"))
                structured.secretValues { policy.secretBodyFields.contains($0.lowercased()) }.forEach { add($0.value) }
            }
            if !found.isEmpty { byFlow[exchange.flow] = found }
            all.formUnion(found)
        }
        values = all
        self.byFlow = byFlow
    }

    /// How a secret takes part in a match: an issued one by its recorded value, the client's own
    /// by its kind alone.
    func canonical(_ value: String, kind: String) -> String {
        values.contains(value) ? "issued:\(value)" : "secret:\(kind.lowercased())"
    }
}
