import FaultlineCapture
import FaultlineHTTP1
import FaultlineTrace
import Foundation

/// A request reduced to what matching compares, with its secrets in canonical form (see
/// `IssuedSecrets.canonical`), so a recorded request and a live one compare part by part.
struct RequestShape: Sendable {
    var method: String
    var url: RecordedURL
    /// `name=value` (secret values canonical), ignored names left out, sorted.
    var query: [String]
    /// Authorization, cookies and secret headers, canonical, sorted.
    var credentials: [PresentedCredential]
    /// Nil when the body cannot decide a match (the recording kept none, or cut it).
    var body: String?
    /// The body's form fields or JSON leaves (``StructuredBody/leaves``), canonical like `body`:
    /// what a mismatch names. Nil for other bodies.
    var bodyLeaves: [String: String]?
    var bodyLength = 0
    var headers: HTTPHeaders

    /// The parts that decide where a request goes: the first index level.
    var route: String { "\(method) \(url.scheme)://\(url.host):\(url.port)\(url.path)" }

    init(
        method: String, url: RecordedURL, headers: HTTPHeaders, body: [UInt8]?, settings: ReplaySettings,
        issued: IssuedSecrets
    ) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        let policy = settings.secrets
        query = (url.query ?? "").split(separator: "&", omittingEmptySubsequences: true).compactMap { parameter in
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = StructuredBody.decode(parts[0].utf8).lowercased()
            guard !settings.ignoredParameters.contains(name) else { return nil }
            let value = parts.count > 1 ? String(parts[1]) : ""
            guard policy.secretQueryParameters.contains(name), !value.isEmpty else { return "\(parts[0])=\(value)" }
            return "\(parts[0])=\(issued.canonical(StructuredBody.decode(value.utf8), kind: name))"
        }.sorted()
        var credentials: [PresentedCredential] = []
        for field in headers {
            let name = field.name.lowercased()
            switch name {
            case "authorization", "proxy-authorization":
                let value = field.value.trimmingCharacters(in: .whitespaces)
                if let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }) {
                    let scheme = value[..<space]
                    let secret = value[space...].trimmingCharacters(in: .whitespaces)
                    let kind = scheme.lowercased() == "bearer" ? "access" : scheme.lowercased()
                    credentials.append(
                        PresentedCredential(
                            name: name, value: "\(scheme.lowercased()) \(issued.canonical(secret, kind: kind))"))
                } else {
                    credentials.append(PresentedCredential(name: name, value: issued.canonical(value, kind: name)))
                }
            case "cookie":
                for pair in field.value.split(separator: ";") {
                    let trimmed = pair.trimmingCharacters(in: .whitespaces)
                    guard let equals = trimmed.firstIndex(of: "=") else { continue }
                    let cookie = String(trimmed[..<equals])
                    let value = String(trimmed[trimmed.index(after: equals)...])
                    credentials.append(
                        PresentedCredential(
                            name: "cookie \(cookie)",
                            value: value.isEmpty ? "" : issued.canonical(value, kind: "cookie-\(cookie)")))
                }
            default:
                if policy.secretHeaderNames.contains(name), name != "set-cookie" {
                    credentials.append(
                        PresentedCredential(
                            name: name,
                            value: issued.canonical(field.value.trimmingCharacters(in: .whitespaces), kind: name)))
                }
            }
        }
        self.credentials = credentials.sorted()
        if let body {
            let structured = StructuredBody(body, contentType: headers.first(name: "content-type"))
            let isSecret = { (name: String) in policy.secretBodyFields.contains(name.lowercased()) }
            let secret = { (name: String, value: String) in issued.canonical(value, kind: name) }
            self.body = structured.canonical(ignored: settings.ignoredParameters, isSecret: isSecret, secret: secret)
            bodyLeaves = structured.leaves(ignored: settings.ignoredParameters, isSecret: isSecret, secret: secret)
            bodyLength = body.count
        } else {
            self.body = nil
        }
    }

    /// True when every part in `parts` equals `recorded`'s (a recorded body of nil matches any).
    /// Credentials match when the request presents every recorded one (extra ones do not decide:
    /// a server reads the ones it asks for) or, `loosely`, when none it presents contradicts a
    /// recorded one (a client that dropped a cookie the recording still sent).
    func matches(_ recorded: RequestShape, parts: [ReplaySettings.MatchPart], loosely: Bool = false) -> Bool {
        guard loosely, parts.contains(.credentials) else {
            return differences(from: recorded, parts: parts, limit: 1).isEmpty
        }
        let others = parts.filter { $0 != .credentials }
        guard differences(from: recorded, parts: others, limit: 1).isEmpty else { return false }
        return recorded.credentials.allSatisfy { wanted in
            !credentials.contains { $0.name == wanted.name } || credentials.contains(wanted)
        }
    }

    /// What differs from `recorded`, one phrase per part, without any live secret (canonical forms only).
    func differences(from recorded: RequestShape, parts: [ReplaySettings.MatchPart], limit: Int = .max) -> [String] {
        var found: [String] = []
        for part in parts where found.count < limit {
            switch part {
            case .method where method != recorded.method: found.append("method \(method), recorded \(recorded.method)")
            case .scheme where url.scheme != recorded.url.scheme:
                found.append("scheme \(url.scheme), recorded \(recorded.url.scheme)")
            case .host where url.host != recorded.url.host:
                found.append("host \(url.host), recorded \(recorded.url.host)")
            case .port where url.port != recorded.url.port:
                found.append("port \(url.port), recorded \(recorded.url.port)")
            case .path where url.path != recorded.url.path:
                found.append("path \(url.path), recorded \(recorded.url.path)")
            case .query where query != recorded.query:
                let names = Set(query).symmetricDifference(recorded.query).map {
                    $0.split(separator: "=").first.map(String.init) ?? $0
                }
                found.append("query parameter(s) \(Set(names).sorted().joined(separator: ", "))")
            case .credentials where !recorded.credentials.allSatisfy(credentials.contains):
                let missing = recorded.credentials.filter { !credentials.contains($0) }
                found.append(
                    "credentials: presents \(Self.describe(credentials)), the recording \(Self.describe(missing))")
            case .body:
                if let recordedBody = recorded.body, let body, body != recordedBody {
                    found.append(bodyDifference(recorded))
                }
            case .header(let name):
                let mine = headers.values(name: name)
                let theirs = recorded.headers.values(name: name)
                if mine != theirs { found.append("header \(name)") }
            default: continue
            }
        }
        return found
    }

    /// `body field /text`, `body fields password, username`, or, for a body with no fields,
    /// `body (67 bytes, recorded 19)`: names only, never a value (it may be a secret).
    private func bodyDifference(_ recorded: RequestShape) -> String {
        guard let mine = bodyLeaves, let theirs = recorded.bodyLeaves else {
            return "body (\(bodyLength) bytes, recorded \(recorded.bodyLength))"
        }
        let names = Set(mine.keys).union(theirs.keys).filter { mine[$0] != theirs[$0] }.sorted()
        guard !names.isEmpty else { return "body" }
        let shown = names.prefix(5).map { $0.isEmpty ? "(the whole document)" : $0 }.joined(separator: ", ")
        return
            "body field\(names.count == 1 ? "" : "s") \(shown)\(names.count > 5 ? " and \(names.count - 5) more" : "")"
    }

    private static func describe(_ credentials: [PresentedCredential]) -> String {
        credentials.isEmpty ? "none" : "[" + credentials.map(\.description).joined(separator: "; ") + "]"
    }
}

/// A credential a request presents, for matching: where (`authorization`, `cookie session`) and
/// what, canonical (`bearer issued:flp.access.L1.2`, `secret:password`): never a live secret.
struct PresentedCredential: Hashable, Sendable, Comparable, CustomStringConvertible {
    let name: String
    let value: String

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.name, lhs.value) < (rhs.name, rhs.value) }

    var description: String { name.hasPrefix("cookie ") ? "\(name)=\(value)" : "\(name): \(value)" }
}
