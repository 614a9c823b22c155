import FaultlineHTTP1

/// A routed request, whole: what the endpoint handlers read.
struct BackendRequest: Sendable {
    var route: Route
    var method: String
    var headers: HTTPHeaders
    /// The decoded query string (empty when there was none).
    var query: FormFields
    var body: [UInt8]

    init(
        route: Route, method: String = "GET", headers: HTTPHeaders = HTTPHeaders(),
        query: FormFields = FormFields(pairs: []), body: [UInt8] = []
    ) {
        self.route = route
        self.method = method
        self.headers = headers
        self.query = query
        self.body = body
    }

    /// The token of an `Authorization: Bearer <token>` field (RFC 6750 §2.1; the scheme is
    /// case-insensitive, RFC 9110 §11.1), nil when there is none or another scheme is used.
    /// Throws when the request has several Authorization fields (RFC 6750 §3.1 `invalid_request`).
    func bearerToken() throws(BadRequest) -> String? {
        let values = headers.values(name: "Authorization")
        guard values.count <= 1 else { throw BadRequest("more than one Authorization field") }
        guard let value = values.first else { return nil }
        guard let space = value.firstIndex(of: " ") else { return nil }
        guard value[..<space].lowercased() == "bearer" else { return nil }
        let token = value[space...].drop(while: { $0 == " " })
        guard !token.isEmpty, !token.contains(" ") else { throw BadRequest("the Bearer credentials are not one token") }
        return String(token)
    }

    /// Every value of a cookie named `name` in the Cookie fields (RFC 6265 §4.2.1:
    /// `name=value` pairs separated by `; `), in order. Several values mean several cookies of
    /// that name were stored, e.g. two logins' sessions.
    func cookieValues(_ name: String) -> [String] {
        var found: [String] = []
        for field in headers.values(name: "Cookie") {
            for pair in field.split(separator: ";") {
                let trimmed = pair.trimmingWhitespace()
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                let value = trimmed[trimmed.index(after: equals)...]
                if !value.isEmpty { found.append(String(value)) }
            }
        }
        return found
    }

    /// The media type of Content-Type without parameters, lowercased; nil when absent.
    var mediaType: String? {
        guard let value = headers.first(name: "Content-Type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingWhitespace().lowercased()
    }

    /// A query flag: true for `1`/`true`/`yes`, false for `0`/`false`/`no` or when absent.
    func flag(_ name: String) throws(BadRequest) -> Bool {
        guard let value = query.value(name) else { return false }
        switch value.lowercased() {
        case "1", "true", "yes", "": return true
        case "0", "false", "no": return false
        default: throw BadRequest("query parameter \(name) must be 1 or 0, not '\(value)'")
        }
    }
}

/// A request the backend refuses with 400 `invalid_request`, and why.
struct BadRequest: Error, Sendable, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    var response: BackendResponse { .error(400, "invalid_request", description) }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    fileprivate func trimmingWhitespace() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var end = endIndex
        while end > startIndex, isWhitespace(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end].drop(while: isWhitespace)
    }
}
