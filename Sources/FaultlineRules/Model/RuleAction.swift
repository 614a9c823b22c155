public import FaultlineCore

/// What a rule does to a flow.
public enum RuleAction: Sendable, Equatable {
    /// Answer with a made-up response (request phase: upstream is never contacted).
    case respond(SyntheticResponse)
    /// Change the real upstream response (a response-phase `rewrite`).
    case rewrite(ResponseRewrite)
    /// Change the request before it goes upstream (a request-phase `rewrite`).
    case rewriteRequest(RequestRewrite)
    /// Send the request to another upstream (mitmproxy's "map remote"; request phase).
    case route(RouteTarget)
    /// Stop the flow until released.
    case hold(HoldSpec)
    /// Add a Set-Cookie to the response.
    case setCookie(SetCookieSpec)
    /// Remove Set-Cookie fields for this cookie name (`*` for all).
    case stripCookie(String)
    /// Deliver the request to its destination extra times.
    case duplicate(DuplicateSpec)
    /// Wait before forwarding (request phase) or delivering (response phase).
    case delay(Duration)
    /// Pace the body in this phase's direction.
    case throttle(bytesPerSecond: Int)
    /// Break the transport. `code`: the HTTP/2 error code (RFC 9113 §7) of the RST_STREAM the
    /// break sends on an HTTP/2 connection, or of the GOAWAY for `goAway`; HTTP/1.1 has none.
    case fault(TransportFault, code: HTTP2ErrorCode? = nil)
}

/// A complete response made by a rule.
public struct SyntheticResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String?
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, reason: String? = nil, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// Changes to a real response.
public struct ResponseRewrite: MessageRewrite, Sendable, Equatable {
    public var status: Int?
    public var setHeaders: [(name: String, value: String)]
    public var addHeaders: [(name: String, value: String)]
    public var removeHeaders: [String]
    /// Replaces the whole body.
    public var body: [UInt8]?
    /// RFC 6901 pointers set in a JSON body (the body is read whole, up to a limit).
    public var jsonSet: [(pointer: String, value: JSONValue)]

    public init(
        status: Int? = nil, setHeaders: [(name: String, value: String)] = [],
        addHeaders: [(name: String, value: String)] = [],
        removeHeaders: [String] = [], body: [UInt8]? = nil, jsonSet: [(pointer: String, value: JSONValue)] = []
    ) {
        self.status = status
        self.setHeaders = setHeaders
        self.addHeaders = addHeaders
        self.removeHeaders = removeHeaders
        self.body = body
        self.jsonSet = jsonSet
    }

    /// True when the rewrite needs the whole upstream body.
    public var needsBody: Bool { !jsonSet.isEmpty }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.hasSameEdits(as: rhs)
    }
}

/// A named hold and how it ends.
public struct HoldSpec: Sendable, Equatable {
    /// What happens when the deadline passes.
    public enum TimeoutOutcome: Sendable, Equatable {
        /// Let the flow continue as if released.
        case release
        /// Answer the client with this status instead.
        case respond(status: Int)
        /// Reset the client connection.
        case reset
    }

    public var name: String
    /// Release when this event is seen.
    public var releaseOn: EventReference?
    public var timeout: Duration?
    public var onTimeout: TimeoutOutcome

    public init(
        name: String, releaseOn: EventReference? = nil, timeout: Duration? = nil, onTimeout: TimeoutOutcome = .release
    ) {
        self.name = name
        self.releaseOn = releaseOn
        self.timeout = timeout
        self.onTimeout = onTimeout
    }
}

/// A Set-Cookie to add.
public enum SetCookieSpec: Sendable, Equatable {
    /// This exact field value, e.g. `sid=abc; Path=/`.
    case literal(String)
    /// The last Set-Cookie value the proxy saw for this cookie name.
    case replay(cookieName: String)
}

/// Extra deliveries of a request.
public struct DuplicateSpec: Sendable, Equatable {
    public enum Timing: String, Sendable {
        case beforeResponse = "before-response"
        case afterResponse = "after-response"
    }

    /// Copies sent besides the original.
    public var count: Int
    /// The gap between one delivery and the next, the original's included: copy N leaves
    /// N × spacing after the moment `timing` names. Zero sends every copy at once.
    public var spacing: Duration
    /// When the copies are scheduled: once the original was forwarded (`before-response`, so
    /// they race its response) or once its response arrived (`after-response`).
    public var timing: Timing

    public init(count: Int = 1, spacing: Duration = .zero, timing: Timing = .afterResponse) {
        self.count = count
        self.spacing = spacing
        self.timing = timing
    }
}

/// Ways to break the transport.
public enum TransportFault: Sendable, Equatable {
    /// Reset the client connection (RST).
    case reset
    /// Close the client connection before any response byte.
    case closeBeforeResponse
    /// Send the response head and part of the body, then close.
    case closeMidBody(afterBytes: Int)
    /// Send only the first bytes of the body, with framing that promises more, then close.
    case truncate(bytes: Int)
    /// Send nothing for this long, then close.
    case stall(Duration)
    /// Send a chunked body whose chunk-size line is not valid hex.
    case malformedChunk
    /// End the client connection gracefully (RFC 9113 §6.8). On HTTP/2, GOAWAY names this
    /// stream as the last one processed (`thisStreamProcessed`: the flow goes on, later streams
    /// are refused) or the stream before it (this stream and later ones are refused, safe to
    /// retry); the connection closes once the streams it keeps are done. On HTTP/1.1 the
    /// connection closes after this response, or before it when this request is not processed.
    case goAway(thisStreamProcessed: Bool)
}
