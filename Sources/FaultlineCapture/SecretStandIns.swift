import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace

/// Whether the secrets a capture carries are stand-ins (`flp.KIND.LINEAGE.N` pseudonyms, `fp:…`
/// fingerprints) or raw values: what decides how a HAR made by another tool is written back
/// (mitmproxy, a browser write credentials in clear).
///
/// It looks where the trace writer replaces secrets (FaultlineTrace's `RedactionPolicy`):
/// `Authorization` after its scheme (RFC 9110 §11.4), each cookie value (RFC 6265 §4.2.1), a
/// `Set-Cookie`'s value (§4.1.1), secret query parameters, secret members of JSON bodies and
/// fields of form bodies, and the `credentials` list. Other bodies cannot be told apart from
/// secrets, so they are not counted either way.
struct SecretStandIns: Equatable {
    /// Secret-bearing values that are neither a pseudonym nor a fingerprint.
    var raw = 0
    var pseudonyms = 0
    var fingerprints = 0

    /// Counts every secret-bearing value of `exchanges`.
    init(_ exchanges: [CapturedExchange], policy: RedactionPolicy = .default) {
        for exchange in exchanges {
            for request in [exchange.clientRequest, exchange.upstreamRequest].compactMap(\.self) {
                count(headers: request.headers, policy: policy)
                for (name, value) in FormURLEncoding.pairs(request.url.query ?? "")
                where policy.secretQueryParameters.contains(name.lowercased()) {
                    count(value)
                }
                count(body: request.body, headers: request.headers, policy: policy)
            }
            if let response = exchange.response {
                count(headers: response.headers, policy: policy)
                count(body: response.body, headers: response.headers, policy: policy)
            }
            for credential in exchange.credentials {
                count(String(credential.split(separator: "=", maxSplits: 1).last ?? ""))
            }
        }
    }

    /// True when at least one secret was seen and every one is a stand-in.
    var allStandIns: Bool { raw == 0 && pseudonyms + fingerprints > 0 }

    /// `fp:` and 16 lowercase hex digits, a trace's keyed fingerprint.
    static func isFingerprint(_ text: some StringProtocol) -> Bool {
        text.hasPrefix("fp:") && text.utf8.count == 19
            && text.unicodeScalars.dropFirst(3).allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    private mutating func count(_ value: some StringProtocol) {
        let trimmed = value.trimmingOWS
        guard !trimmed.isEmpty else { return }
        if Pseudonym.isPseudonym(String(trimmed)) {
            pseudonyms += 1
        } else if Self.isFingerprint(trimmed) {
            fingerprints += 1
        } else {
            raw += 1
        }
    }

    private mutating func count(headers: HTTPHeaders, policy: RedactionPolicy) {
        for field in headers where policy.secretHeaderNames.contains(field.name.lowercased()) {
            switch field.name.lowercased() {
            case "authorization", "proxy-authorization":
                // `scheme credentials`: the scheme is no secret; a single word may be one.
                let words = field.value.split(separator: " ", maxSplits: 1)
                count(words.count == 2 ? words[1] : field.value[...])
            case "cookie":
                for pair in field.value.split(separator: ";") {
                    count(pair.split(separator: "=", maxSplits: 1).last ?? "")
                }
            case "set-cookie":
                let pair = field.value.prefix { $0 != ";" }
                count(pair.split(separator: "=", maxSplits: 1).last ?? "")
            default:
                count(field.value)
            }
        }
    }

    private mutating func count(body: CapturedContent?, headers: HTTPHeaders, policy: RedactionPolicy) {
        guard let body, let text = body.text, !text.isEmpty else { return }
        let contentType = headers.first(name: "content-type")?.lowercased() ?? ""
        if contentType.contains("json"), let document = JSONValue.parse(body.bytes) {
            count(json: document, policy: policy)
        } else if contentType.contains("x-www-form-urlencoded") {
            for (name, value) in FormURLEncoding.pairs(text) where policy.secretBodyFields.contains(name.lowercased()) {
                count(value)
            }
        }
    }

    private mutating func count(json: JSONValue, policy: RedactionPolicy) {
        switch json {
        case .object(let members):
            for member in members {
                if policy.secretBodyFields.contains(member.key.lowercased()), let text = member.value.stringValue {
                    count(text)
                } else {
                    count(json: member.value, policy: policy)
                }
            }
        case .array(let elements):
            for element in elements { count(json: element, policy: policy) }
        default:
            return
        }
    }
}
