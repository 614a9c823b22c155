import FaultlineCore

/// Which header fields and query parameters hold secrets, for the trace writer to fingerprint.
///
/// The writer applies the policy to every `.headers` and `.target` value, so a caller cannot
/// forget to redact. Pass one to `TraceRecorder.init`; `.default` covers the usual credentials,
/// and an auth profile adds the header and parameter names its API uses.
public struct RedactionPolicy: Sendable {
    /// The policy with only the built-in names.
    public static let `default` = RedactionPolicy()

    /// Header names that always hold credentials, each redacted in a way that keeps its structure.
    public static let defaultSecretHeaderNames = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Query parameters that commonly carry credentials (OAuth 2.0, RFC 6749 §4.1.2, §4.2.2, and common API keys).
    public static let defaultSecretQueryParameters = [
        "access_token", "refresh_token", "id_token", "token", "code", "password", "client_secret", "api_key",
    ]

    /// Header names whose values contain URLs, redacted like `.target` values.
    static let urlHeaderNames = ["location", "content-location", "referer"]

    /// Every header name this policy redacts (lowercased), built-in ones first.
    public let secretHeaderNames: [String]
    /// Every query parameter name this policy redacts (lowercased), built-in ones first.
    public let secretQueryParameters: [String]

    /// Every JSON member and form field name whose value a capture replaces (lowercased): the
    /// query parameters above plus the body fields an auth profile names.
    public let secretBodyFields: [String]

    let headerRules: [HeaderRule]
    let queryParameterNames: [[UInt8]]
    let bodyFieldNames: [[UInt8]]

    /// Makes a policy with the built-in names plus `extraHeaderNames` (whose whole values become
    /// fingerprints) and `extraQueryParameters` (whose values become fingerprints). Names match
    /// case-insensitively. `extraBodyFields` are JSON member or form field names that hold
    /// credentials in captured bodies, besides the query parameter names.
    public init(extraHeaderNames: [String] = [], extraQueryParameters: [String] = [], extraBodyFields: [String] = []) {
        var headers = Self.defaultSecretHeaderNames
        for name in extraHeaderNames.map({ String(decoding: ASCII.lowercasedBytes($0), as: UTF8.self) })
        where !headers.contains(name) {
            headers.append(name)
        }
        var parameters = Self.defaultSecretQueryParameters
        for name in extraQueryParameters.map({ String(decoding: ASCII.lowercasedBytes($0), as: UTF8.self) })
        where !parameters.contains(name) {
            parameters.append(name)
        }
        secretHeaderNames = headers
        secretQueryParameters = parameters
        var bodyFields = parameters
        for name in extraBodyFields.map({ String(decoding: ASCII.lowercasedBytes($0), as: UTF8.self) })
        where !bodyFields.contains(name) {
            bodyFields.append(name)
        }
        secretBodyFields = bodyFields
        bodyFieldNames = bodyFields.map { Array($0.utf8) }

        var rules: [HeaderRule] = headers.map { name in
            switch name {
            case "authorization", "proxy-authorization": HeaderRule(name: name, treatment: .authorization)
            case "cookie": HeaderRule(name: name, treatment: .cookie)
            case "set-cookie": HeaderRule(name: name, treatment: .setCookie)
            default: HeaderRule(name: name, treatment: .opaque)
            }
        }
        // A URL header named as secret is fingerprinted whole, which the rule above already says.
        rules += Self.urlHeaderNames.filter { !headers.contains($0) }.map { HeaderRule(name: $0, treatment: .url) }
        headerRules = rules
        queryParameterNames = parameters.map { Array($0.utf8) }
    }

    /// How one header's value is written.
    enum HeaderTreatment {
        /// `scheme fp:...`: the auth-scheme stays readable (RFC 9110 §11.4).
        case authorization
        /// `name=fp:...; name=fp:...` (RFC 6265 §4.2).
        case cookie
        /// `name=fp:...; Path=/; HttpOnly` (RFC 6265 §4.1).
        case setCookie
        /// The whole value becomes one fingerprint.
        case opaque
        /// Redacted like a request target.
        case url
    }

    struct HeaderRule: Sendable {
        let name: [UInt8]
        let treatment: HeaderTreatment

        init(name: String, treatment: HeaderTreatment) {
            self.name = Array(name.utf8)
            self.treatment = treatment
        }
    }

    /// The treatment of header `name`, or nil when its value is written as is.
    func treatment(ofHeader name: UnsafeBufferPointer<UInt8>) -> HeaderTreatment? {
        for rule in headerRules where name.equalsIgnoringASCIICase(rule.name) {
            return rule.treatment
        }
        return nil
    }

    /// Whether a JSON member or form field with this (decoded) name holds a secret.
    func isSecretBodyField(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if name.firstIndex(of: UInt8(ascii: "%")) == nil {
            return bodyFieldNames.contains { name.equalsIgnoringASCIICase($0) }
        }
        return PercentDecoding.withDecoded(name) { decoded in
            bodyFieldNames.contains { decoded.equalsIgnoringASCIICase($0) }
        }
    }

    /// Whether a query parameter with this (still percent-encoded) name holds a secret.
    func isSecretQueryParameter(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let trimmed = name.trimmingWhitespace()
        if trimmed.firstIndex(of: UInt8(ascii: "%")) == nil {
            return queryParameterNames.contains { trimmed.equalsIgnoringASCIICase($0) }
        }
        // `access%5Ftoken` is `access_token` to the server, so it is a secret here too.
        return PercentDecoding.withDecoded(trimmed) { decoded in
            queryParameterNames.contains { decoded.equalsIgnoringASCIICase($0) }
        }
    }
}

/// Percent-decoding (RFC 3986 §2.1) for comparing and fingerprinting query components.
enum PercentDecoding {
    /// Calls `body` with `bytes` where every valid `%XX` is decoded; invalid `%` sequences stay.
    static func withDecoded<Result>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        guard bytes.firstIndex(of: UInt8(ascii: "%")) != nil else { return body(bytes) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded.withUnsafeBufferPointer(body)
    }
}
