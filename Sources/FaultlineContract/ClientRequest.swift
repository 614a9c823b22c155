import FaultlineCapture
import FaultlineCore
import FaultlineTrace

/// A credential a request presented, as the trace writes it: `access=fp:…`.
struct PresentedCredential: Hashable, Sendable {
    /// `access`, `refresh`, `session` (the auth profile's kinds).
    let kind: String
    /// `fp:` and 16 hex digits.
    let fingerprint: String

    /// Reads `kind=fp:…`; nil for anything else.
    init?(traceText: String) {
        guard let equals = traceText.firstIndex(of: "=") else { return nil }
        kind = String(traceText[..<equals])
        fingerprint = String(traceText[traceText.index(after: equals)...])
        guard !kind.isEmpty, !fingerprint.isEmpty else { return nil }
    }

    init(kind: String, fingerprint: String) {
        self.kind = kind
        self.fingerprint = fingerprint
    }

    /// How sentences name it: "an access token", "a session cookie".
    var phrase: String {
        switch kind {
        case "access": "an access token"
        case "refresh": "a refresh token"
        case "session": "a session cookie"
        default: "a \(kind) credential"
        }
    }
}

/// One request the client sent, as `request.received` recorded it: what every clause needs to
/// know about it, with credentials reduced to fingerprints.
struct ClientRequest: Sendable {
    let flow: UInt64
    let connection: UInt64?
    let seq: UInt64
    let mono: UInt64
    let method: String
    /// The URL or target as recorded (secrets already fingerprinted), query included.
    let url: String
    let host: String?
    /// The path without query.
    let path: String
    /// The auth profile's role, or nil when the trace has no profile data for it.
    let role: String?
    /// The lineage the proxy attributed the request to.
    let lineageField: String?
    /// `credentials` of the event (profile locations).
    let credentials: [PresentedCredential]
    /// Cookie name/value pairs of the Cookie header (values are fingerprints), for traces without a profile.
    let cookies: [(name: String, value: String)]
    /// The value of the contract's retry identity header, when the request has it.
    let identityKey: String?
    /// The body length the head announced: Content-Length, 0 when it announced no body, nil for chunked.
    let announcedBodyLength: Int64?

    /// The auth profile's own roles (`revoke` is RFC 7009 token revocation).
    static let authRoles: Set<String> = ["login", "refresh", "logout", "revoke"]

    /// Business or a custom role (`callback`): requests the retry clauses follow.
    var isBusinessLike: Bool { role.map { !Self.authRoles.contains($0) } ?? true }

    /// A logout or a revocation (RFC 7009 §2.1): presenting a credential here ends it rather than
    /// uses it, so sending a late or signed-out credential to these is cleanup, not a violation.
    var isCleanup: Bool { role == "logout" || role == "revoke" }

    /// `GET /v1/messages`.
    var label: String { "\(method) \(path)" }

    /// The credential that a 401 rejects: the access token, else the session cookie.
    var primaryCredential: PresentedCredential? {
        credentials.first { $0.kind == "access" } ?? credentials.first { $0.kind == "session" }
    }

    /// The presented credential of `kind`.
    func credential(ofKind kind: String) -> PresentedCredential? { credentials.first { $0.kind == kind } }

    /// Reads a `request.received` event; nil for proxy-made duplicates and CONNECT tunnels,
    /// which are not requests the client's session logic sent.
    init?(_ event: TraceEvent, identityHeader: String?) {
        guard event.attributes["duplicate_of"] == nil, let flow = event.flow?.rawValue,
            let method = event.string("method"), method != "CONNECT"
        else { return nil }
        self.flow = flow
        self.connection = event.connection?.rawValue
        self.seq = event.seq
        self.mono = event.monoNanoseconds
        self.method = method
        let url = event.string("url") ?? ""
        self.url = url
        self.host = event.string("host")
        self.path = Self.path(of: event.string("path") ?? url)
        self.role = event.string("role")
        self.lineageField = event.string("lineage")
        self.credentials = (event.strings("credentials") ?? []).compactMap(PresentedCredential.init(traceText:))
        var cookies: [(name: String, value: String)] = []
        var identityKey: String?
        var contentLength: Int64?
        var chunked = false
        let wantedIdentity = identityHeader?.lowercased()
        for header in event.attributes["headers"]?.arrayValue ?? [] {
            guard let pair = header.arrayValue, pair.count == 2, let name = pair[0].stringValue,
                let value = pair[1].stringValue
            else { continue }
            if name.equalsIgnoringASCIICase("cookie") {
                for piece in value.split(separator: ";") {
                    let trimmed = piece.trimmingOWS
                    guard let equals = trimmed.firstIndex(of: "=") else { continue }
                    cookies.append((String(trimmed[..<equals]), String(trimmed[trimmed.index(after: equals)...])))
                }
            } else if name.equalsIgnoringASCIICase("content-length") {
                contentLength = Int64(value.trimmingOWS)
            } else if name.equalsIgnoringASCIICase("transfer-encoding") {
                chunked = true
            } else if let wantedIdentity, identityKey == nil, name.equalsIgnoringASCIICase(wantedIdentity) {
                identityKey = String(value.trimmingOWS)
            }
        }
        self.cookies = cookies
        self.identityKey = identityKey
        // RFC 9112 §6.3: a request with neither Transfer-Encoding nor Content-Length has no body.
        self.announcedBodyLength = chunked ? nil : (contentLength ?? 0)
    }

    /// The path of an absolute URL or origin-form target, without query or fragment.
    static func path(of url: String) -> String {
        var rest = Substring(url)
        if let authority = authorityStart(of: rest) {
            rest = rest[authority...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        return rest.isEmpty ? "/" : String(rest)
    }

    /// Where the authority starts in `scheme://authority/...`, or nil for a target without scheme.
    static func authorityStart(of text: Substring) -> Substring.Index? {
        guard let colon = text.firstIndex(of: ":"), !text[..<colon].contains("/") else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        return rest.index(rest.startIndex, offsetBy: 2)
    }
}

/// How a client request ended, as far as the trace tells.
struct TracedOutcome: Sendable {
    enum Ending: Sendable, Equatable {
        /// A response (real or made by the proxy) reached the client.
        case answered
        /// The client went away first (`flow.aborted`).
        case aborted
        /// The upstream or the exchange broke after the response started (no complete answer).
        case failed
        /// The trace ended first.
        case unfinished
    }

    var ending: Ending
    /// The status delivered to the client.
    var status: Int?
    /// The proxy made the answer (a rule's `respond`, or an error page).
    var synthetic: Bool
    /// The error page code (`upstream-refused`) when the proxy answered with one.
    var errorCode: String?
    var endSeq: UInt64
    var endMono: UInt64
    /// Whether the request reached the upstream.
    var forwarded: Bool
    /// The request body as forwarded.
    var body: BodySummary?
    /// Its first bytes, when the trace is a capture.
    var captured: CapturedPrefix?
    /// A 429's or 503's `Retry-After` (`response.delivered`'s `retry_after`).
    var retryAfter: RetryAfter?

    var succeeded: Bool { ending == .answered && (status.map { $0 < 400 } ?? false) }
}

extension String {
    /// ASCII case-insensitive equality with a lowercase name (header names, RFC 9110 §5.1).
    func equalsIgnoringASCIICase(_ lowercase: String) -> Bool {
        guard utf8.count == lowercase.utf8.count else { return false }
        return zip(utf8, lowercase.utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0) == $1 }
    }
}
