public import FaultlineTrace

/// How `faultline replay serve` matches requests to the recording and what it does at the edges.
public struct ReplaySettings: Sendable {
    /// The parts of a request that must equal the recorded request's.
    public enum MatchPart: Hashable, Sendable, CustomStringConvertible {
        case method, scheme, host, port, path
        /// The query's parameters, in any order, without the ignored ones.
        case query
        /// The body: JSON and forms by their fields (in any order, without the ignored ones), other
        /// bodies byte for byte.
        case body
        /// The credentials presented (Authorization, cookies, secret headers): a token the replay
        /// issued stands for the recorded one it replaced.
        case credentials
        /// One header's values.
        case header(String)

        /// `method,scheme,host,port,path,query,body,credentials`.
        public static let defaults: [MatchPart] = [.method, .scheme, .host, .port, .path, .query, .body, .credentials]

        /// Parses `method`, `query`, `header:NAME`...; nil for anything else.
        public init?(parsing text: String) {
            let lower = text.lowercased()
            if lower.hasPrefix("header:"), lower.count > 7 {
                self = .header(String(lower.dropFirst(7)))
                return
            }
            switch lower {
            case "method": self = .method
            case "scheme": self = .scheme
            case "host": self = .host
            case "port": self = .port
            case "path": self = .path
            case "query": self = .query
            case "body": self = .body
            case "credentials": self = .credentials
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .method: "method"
            case .scheme: "scheme"
            case .host: "host"
            case .port: "port"
            case .path: "path"
            case .query: "query"
            case .body: "body"
            case .credentials: "credentials"
            case .header(let name): "header:\(name)"
            }
        }
    }

    /// What a request gets once every recorded response it matches has been used.
    public enum Repeat: String, Sendable, CaseIterable {
        /// The last of them again (the default).
        case last
        /// The first again, then the next (VCR's `allow_playback_repeats` in a loop).
        case cycle
        /// Nothing: it is unmatched.
        case none
    }

    /// What happens to a request no recorded request matches.
    public enum Unmatched: String, Sendable, CaseIterable {
        /// 502 with `X-Faultline-Error: replay-unmatched` and the nearest recorded request.
        case error
        /// Sent to the real upstream: the only way a replay reaches the network.
        case forward
    }

    /// When a replayed response is delivered.
    public enum Order: String, Sendable, CaseIterable {
        /// As soon as it is matched.
        case free
        /// Once the requests, responses and marks that came before its delivery in the capture
        /// have happened in this run (or its deadline passed).
        case recorded
    }

    /// Query, form and JSON fields that never decide a match: cache busters and one-time values.
    public static let defaultIgnoredParameters = ["_", "cb", "cachebuster", "nonce", "timestamp", "ts"]

    public var match: [MatchPart]
    public var ignoredParameters: Set<String>
    public var repeatPolicy: Repeat
    public var unmatched: Unmatched
    public var order: Order
    /// How long a response waits for the recorded order before it goes anyway (and the replay
    /// says it diverged).
    public var orderTimeout: Duration
    /// Which header, query and body field names carry credentials (the same names the trace
    /// redacts, plus the auth profile's).
    public var secrets: RedactionPolicy
    /// Which time the answers tell (`--clock`, `--now`): by default recorded times move to now.
    public var clock = ReplayClock()

    public init(
        match: [MatchPart] = MatchPart.defaults, ignoredParameters: Set<String> = Set(Self.defaultIgnoredParameters),
        repeatPolicy: Repeat = .last, unmatched: Unmatched = .error, order: Order = .free,
        orderTimeout: Duration = .seconds(10), secrets: RedactionPolicy = .default
    ) {
        self.match = match
        self.ignoredParameters = Set(ignoredParameters.map { $0.lowercased() })
        self.repeatPolicy = repeatPolicy
        self.unmatched = unmatched
        self.order = order
        self.orderTimeout = orderTimeout
        self.secrets = secrets
    }
}
