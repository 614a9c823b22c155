public import FaultlineHTTP1
public import FaultlineTrace

/// A capture (or a trace) read back as exchanges and their order: what replay, HAR export and
/// `rules from-capture` work from.
///
/// A capture is a trace written with `faultline run --capture`: besides the events of every trace
/// it holds each upstream exchange's bodies and the request as it went upstream. A plain trace
/// reads too, without bodies; a HAR file is converted to the same model (`HARImporter`).
public struct Capture: Sendable, Equatable {
    /// How the file writes secrets.
    public enum Secrets: String, Sendable, Equatable {
        /// `flp.KIND.LINEAGE.N` pseudonyms (a capture, the default).
        case pseudonyms
        /// The raw values (`--capture-secrets keep`).
        case kept
        /// Keyed fingerprints (a plain trace: no bodies either).
        case fingerprints
    }

    /// Where the capture came from, for messages (a path, or `-`).
    public var source: String
    public var secrets: Secrets
    /// True when the file kept bodies (a capture, or a HAR with content).
    public var hasBodies: Bool
    /// Every flow that had a request, in `request.received` order; copies made by `duplicate`
    /// rules included (`duplicateOf`).
    public var exchanges: [CapturedExchange]
    /// Requests received, responses delivered and marks, in trace order: the interleaving that
    /// `--order recorded` reproduces.
    public var timeline: [TimelineEntry]
    /// The kind (`access`, `refresh`, `session`) of each credential value the `lineage.*` events
    /// name (pseudonyms, raw values or fingerprints), from a run with an auth profile.
    public var credentialKinds: [String: String]
    /// When the trace was started (its header's `created`), RFC 3339 UTC; nil when unknown.
    public var created: String?
    /// Bytes kept of each body (the capture header's `body_limit`); nil when the file does not say.
    public var bodyLimit: Int?
    /// What reading the file left out or changed, one sentence each (a HAR entry without a
    /// response, a header that cannot be sent over HTTP/1.1), for the command line to show.
    public var notes: [String]

    public init(
        source: String, secrets: Secrets, hasBodies: Bool, exchanges: [CapturedExchange], timeline: [TimelineEntry],
        credentialKinds: [String: String] = [:], created: String? = nil, bodyLimit: Int? = nil, notes: [String] = []
    ) {
        self.source = source
        self.secrets = secrets
        self.hasBodies = hasBodies
        self.exchanges = exchanges
        self.timeline = timeline
        self.credentialKinds = credentialKinds
        self.created = created
        self.bodyLimit = bodyLimit
        self.notes = notes
    }

    /// The kind of credential `value` is: what the lineage events say, else what its pseudonym
    /// names (`flp.refresh.L1.2` is a refresh token); nil when neither tells.
    public func credentialKind(of value: String) -> String? {
        credentialKinds[value] ?? Pseudonym.kind(of: value)
    }

    /// The exchanges an upstream answered (the ones a replay can serve), in recorded order.
    public var answeredExchanges: [CapturedExchange] {
        exchanges.filter { $0.upstreamRequest != nil && $0.response != nil && $0.duplicateOf == nil }
    }

    /// The exchange of recorded flow `flow`.
    public func exchange(flow: Int64) -> CapturedExchange? {
        exchanges.first { $0.flow == flow }
    }
}

/// One flow of a capture: the request as the client sent it and as it went upstream, the
/// upstream's response, and when each step happened.
public struct CapturedExchange: Sendable, Equatable {
    public var flow: Int64
    public var connection: Int64?
    /// Set on a copy a `duplicate` rule made of flow `duplicateOf`.
    public var duplicateOf: Int64?
    /// The auth profile's role and the lineage the request belonged to, when the run had a profile.
    public var role: String?
    public var lineage: String?
    /// The credentials the request presented, `kind=VALUE` (pseudonyms, raw values or fingerprints).
    public var credentials: [String]
    public var received: Moment
    public var forwarded: Moment?
    public var responseReceived: Moment?
    /// When the upstream's response ended (a capture's `response.body`); nil in a plain trace.
    public var responseEnded: Moment?
    public var delivered: Moment?
    /// The request as the client sent it.
    public var clientRequest: CapturedRequest
    /// The request as it went upstream (after routing and request rules); nil when it never did
    /// (a rule answered it, the client left).
    public var upstreamRequest: CapturedRequest?
    /// The upstream's response; nil when none came.
    public var response: CapturedResponse?
    /// Length and fingerprint of the request body as it went upstream (`request.forwarded`'s
    /// `body`); what a plain trace knows of a body it did not keep.
    public var forwardedBody: BodySummary?
    /// What the client got, when it got a response.
    public var deliveredStatus: Int?
    /// Length and fingerprint of the response body the client got (`response.delivered`'s `body`).
    public var deliveredBody: BodySummary?
    /// True when the proxy made the response the client got (a rule's answer, an error page).
    public var synthetic: Bool

    public init(flow: Int64, received: Moment, clientRequest: CapturedRequest) {
        self.flow = flow
        self.received = received
        self.clientRequest = clientRequest
        credentials = []
        synthetic = false
    }
}

/// When a step happened: the trace's `seq`, monotonic and wall times.
public struct Moment: Sendable, Equatable {
    public var seq: UInt64
    public var monoNanoseconds: UInt64
    public var wall: String

    public init(seq: UInt64, monoNanoseconds: UInt64, wall: String) {
        self.seq = seq
        self.monoNanoseconds = monoNanoseconds
        self.wall = wall
    }
}

/// A request of a capture.
public struct CapturedRequest: Sendable, Equatable {
    public var method: String
    /// The absolute URL, secrets as the capture writes them.
    public var url: RecordedURL
    public var httpVersion: String
    public var headers: HTTPHeaders
    /// Nil in a plain trace, or when the request had no body.
    public var body: CapturedContent?

    public init(method: String, url: RecordedURL, httpVersion: String, headers: HTTPHeaders, body: CapturedContent?) {
        self.method = method
        self.url = url
        self.httpVersion = httpVersion
        self.headers = headers
        self.body = body
    }
}

/// An upstream response of a capture.
public struct CapturedResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var httpVersion: String
    public var headers: HTTPHeaders
    /// Nil in a plain trace.
    public var body: CapturedContent?
    public var trailers: HTTPHeaders?

    public init(
        status: Int, reason: String, httpVersion: String, headers: HTTPHeaders, body: CapturedContent?,
        trailers: HTTPHeaders? = nil
    ) {
        self.status = status
        self.reason = reason
        self.httpVersion = httpVersion
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }
}

/// A body as a capture kept it.
public struct CapturedContent: Sendable, Equatable {
    /// The bytes kept (the first ones only when `truncated`), secrets as the capture writes them:
    /// a pseudonym's length differs from the secret's, so `bytes.count` need not be `length`.
    public var bytes: [UInt8]
    /// The length of the whole body on the wire.
    public var length: Int64
    /// True when the capture kept only the first bytes (the body was over its limit).
    public var truncated: Bool

    public init(bytes: [UInt8], length: Int64? = nil, truncated: Bool = false) {
        self.bytes = bytes
        self.length = length ?? Int64(bytes.count)
        self.truncated = truncated
    }

    /// The bytes as UTF-8 text, when they are.
    public var text: String? { String(validating: bytes, as: UTF8.self) }
}

/// One step of a capture's interleaving.
public struct TimelineEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Recorded flow's request arrived.
        case received(flow: Int64)
        /// Recorded flow's response reached its client.
        case delivered(flow: Int64)
        /// A test's mark, by label.
        case mark(String)
    }

    public var kind: Kind
    public var at: Moment

    public init(_ kind: Kind, at: Moment) {
        self.kind = kind
        self.at = at
    }
}
