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
    /// What `canonical` calls each issued value: a Faultline pseudonym (`flp.access.L1.2`) as it
    /// is, any other value (a HAR from another tool holds the real token) after the recorded flow
    /// that issued it (`flow7.1`). Canonical forms end up in unmatched explanations, which the
    /// trace and the 502 body carry: they must never hold a secret.
    private let names: [String: String]

    /// A secret is issued by the first response that carries it, unless a request presented it
    /// before (an echo of the client's own token is not the server's). Requests and responses are
    /// read in trace order.
    init(capture: Capture, policy: RedactionPolicy) {
        enum Step { case request(CapturedExchange), response(CapturedExchange) }
        var steps: [(UInt64, Step)] = []
        for exchange in capture.exchanges {
            steps.append((exchange.forwarded?.seq ?? exchange.received.seq, .request(exchange)))
            if exchange.response != nil {
                steps.append((exchange.responseReceived?.seq ?? exchange.received.seq, .response(exchange)))
            }
        }
        var presented = Set<String>()
        var all = Set<String>()
        var byFlow: [Int64: [String]] = [:]
        for (_, step) in steps.sorted(by: { $0.0 < $1.0 }) {
            switch step {
            case .request(let exchange):
                presented.formUnion(
                    Self.secrets(in: exchange.upstreamRequest ?? exchange.clientRequest, policy: policy))
            case .response(let exchange):
                let found = Self.secrets(in: exchange.response!, policy: policy).filter { !presented.contains($0) }
                if !found.isEmpty { byFlow[exchange.flow] = found }
                all.formUnion(found)
            }
        }
        values = all
        self.byFlow = byFlow
        var names: [String: String] = [:]
        for flow in byFlow.keys.sorted() {
            for (index, value) in byFlow[flow]!.enumerated() where names[value] == nil {
                names[value] = Pseudonym.isPseudonym(value) ? value : "flow\(flow).\(index + 1)"
            }
        }
        self.names = names
    }

    /// The secrets a response carries: pseudonyms anywhere, Set-Cookie values, secret headers, and
    /// the values of secret JSON or form fields.
    static func secrets(in response: CapturedResponse, policy: RedactionPolicy) -> [String] {
        var found: [String] = []
        func add(_ value: String) {
            if !value.isEmpty, !found.contains(value) { found.append(value) }
        }
        for field in response.headers {
            Pseudonym.occurrences(in: field.value).forEach(add)
            let name = field.name.lowercased()
            if name == "set-cookie", let pair = field.value.split(separator: ";").first,
                let equals = pair.firstIndex(of: "=")
            {
                add(pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            } else if policy.secretHeaderNames.contains(name),
                !["authorization", "proxy-authorization", "cookie"].contains(name)
            {
                add(field.value.trimmingCharacters(in: .whitespaces))
            }
        }
        if let body = response.body {
            Pseudonym.occurrences(in: String(decoding: body.bytes, as: UTF8.self)).forEach(add)
            StructuredBody(body.bytes, contentType: response.headers.first(name: "content-type"))
                .secretValues { policy.secretBodyFields.contains($0.lowercased()) }.forEach { add($0.value) }
        }
        return found
    }

    /// The secrets a request presents: pseudonyms anywhere, Authorization credentials, cookie
    /// values, secret headers, and secret query, form or JSON fields.
    static func secrets(in request: CapturedRequest, policy: RedactionPolicy) -> [String] {
        var found: [String] = []
        func add(_ value: String) {
            if !value.isEmpty, !found.contains(value) { found.append(value) }
        }
        Pseudonym.occurrences(in: request.url.description).forEach(add)
        for parameter in (request.url.query ?? "").split(separator: "&") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            if parts.count == 2,
                policy.secretQueryParameters.contains(StructuredBody.decode(parts[0].utf8).lowercased())
            {
                add(StructuredBody.decode(parts[1].utf8))
            }
        }
        for field in request.headers {
            Pseudonym.occurrences(in: field.value).forEach(add)
            let name = field.name.lowercased()
            let value = field.value.trimmingCharacters(in: .whitespaces)
            switch name {
            case "authorization", "proxy-authorization":
                add(value.split(separator: " ", maxSplits: 1).last.map(String.init) ?? value)
            case "cookie":
                for pair in value.split(separator: ";") {
                    if let equals = pair.firstIndex(of: "=") {
                        add(pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
                    }
                }
            default:
                if policy.secretHeaderNames.contains(name) { add(value) }
            }
        }
        if let body = request.body {
            Pseudonym.occurrences(in: String(decoding: body.bytes, as: UTF8.self)).forEach(add)
            StructuredBody(body.bytes, contentType: request.headers.first(name: "content-type"))
                .secretValues { policy.secretBodyFields.contains($0.lowercased()) }.forEach { add($0.value) }
        }
        return found
    }

    /// How a secret takes part in a match: an issued one by its recorded value, the client's own
    /// by its kind alone.
    func canonical(_ value: String, kind: String) -> String {
        names[value].map { "issued:\($0)" } ?? "secret:\(kind.lowercased())"
    }
}
