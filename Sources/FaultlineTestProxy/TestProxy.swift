import FaultlineCapture
import FaultlineConfig
public import FaultlineContract
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
public import FaultlineReplay
public import FaultlineRules
public import FaultlineServer
public import FaultlineTLS
public import FaultlineTrace
public import Foundation

/// A Faultline proxy started inside a test: its own listeners on ephemeral ports, its own rules,
/// scenario state and trace, so tests running in parallel never see each other.
///
/// ```swift
/// let proxy = try TestProxy.start(upstream: backendURL, rules: .directory("Rules"))  // with auth-profile.json5
/// defer { proxy.stop() }
/// // point the client at proxy.baseURL (reverse mode), or give a child process proxy.environment
/// let held = try await proxy.waitForHold("refresh-response")
/// try await logout()
/// held.release()  // false if the hold's own `release: { on: ... }` already let it go
/// try proxy.expectContractHolds()  // fails on a broken clause, or one the trace could not feed
/// ```
public final class TestProxy: Sendable {
    /// Where the rules come from.
    public enum Rules: Sendable {
        /// A folder of rule files, as `faultline run --rules` loads it.
        case directory(String)
        /// Rule files given as text, keyed by file name (`auth-profile.json5` is the profile).
        case files([String: String])
        /// A rule set built in code.
        case ruleSet(RuleSet)
    }

    /// TLS for a test's proxy: a CA of its own (in memory, never written), interception of the
    /// forward listener's `CONNECT`s, and `https` upstreams.
    public struct TLS: Sendable {
        /// Extra PEM trust anchors for upstream servers (a test backend's CA).
        public var upstreamTrustAnchorsFile: String?
        /// False skips upstream certificate checks (the trace says so on every handshake).
        public var verifyUpstream: Bool
        /// Host globs to open up (empty: all) and to tunnel untouched, as `--intercept`/`--ignore`.
        public var intercept: [String]
        public var ignore: [String]

        public init(
            upstreamTrustAnchorsFile: String? = nil, verifyUpstream: Bool = true, intercept: [String] = [],
            ignore: [String] = []
        ) {
            self.upstreamTrustAnchorsFile = upstreamTrustAnchorsFile
            self.verifyUpstream = verifyUpstream
            self.intercept = intercept
            self.ignore = ignore
        }
    }

    /// A rule folder or file that does not load, with every error as `file:line:column: message`.
    public struct RulesError: Error, CustomStringConvertible {
        public let errors: [String]
        public var description: String { "rules do not load:\n" + errors.joined(separator: "\n") }
    }

    public let server: ProxyServer
    /// The reverse-mode listener's URL (only when started with an `upstream`): clients that cannot
    /// use a proxy, such as Foundation on Linux, send their requests here.
    public let baseURL: URL?
    /// The forward-proxy listener's URL, for `http_proxy`.
    public let proxyURL: URL
    /// The CA that signs what this proxy presents to intercepted clients (started with `tls`):
    /// give its ``CertificateAuthority/certificatePEM`` or `certificateDER` to the client under
    /// test as a trust anchor. Each proxy has its own, so tests do not share trust.
    public var certificateAuthority: CertificateAuthority? { server.configuration.tls?.authority }

    private init(server: ProxyServer, baseURL: URL?, proxyURL: URL) {
        self.server = server
        self.baseURL = baseURL
        self.proxyURL = proxyURL
    }

    /// Starts a proxy on 127.0.0.1 with a forward listener and, given `upstream` (`http://` or,
    /// with `tls`, `https://`), a reverse one. A path in `upstream` is kept as a prefix:
    /// `http://host/api` sends the client's `/v1/me` upstream as `/api/v1/me` (rules match
    /// `/v1/me`). With `tls` the forward listener intercepts `CONNECT`s with a fresh in-memory CA.
    /// The trace is kept in memory: read it with `trace()` or `traceText`. Throws `RulesError`
    /// when the rules do not load or the upstream URL cannot be used, `TLSError` when the TLS
    /// settings cannot, `ServerError` when a listener cannot start.
    ///
    /// With `capture`, the trace is a capture (`faultline run --capture`): it also keeps each
    /// exchange's bodies, secrets as pseudonyms; `saveCapture(to:)` writes it to a file that
    /// `start(replaying:)` and `faultline replay serve` read.
    public static func start(
        upstream: URL? = nil, rules: Rules? = nil, loops: Int = 1, tls: TLS? = nil, capture: CaptureOptions? = nil,
        explore: ExploreConfiguration? = nil
    ) throws -> TestProxy {
        try start(
            upstream: upstream, rules: rules, loops: loops, tls: tls, capture: capture, replay: nil, explore: explore)
    }

    /// Starts a proxy that answers from the capture, trace or HAR file at `replaying` instead of
    /// any upstream (`faultline replay serve`): the forward listener serves absolute-form
    /// requests and, with `tls`, intercepted `CONNECT`s for every host; `baseURL` serves as the
    /// recorded origin (`origin`, or the capture's only one). Rules, holds and the trace work on
    /// top as on a live proxy. Throws `CaptureLoadError` when the file cannot be read, `RulesError`
    /// when the rules do not load or the capture has several origins and `origin` names none.
    public static func start(
        replaying: URL, origin: URL? = nil, rules: Rules? = nil, settings: ReplaySettings = ReplaySettings(),
        loops: Int = 1, tls: TLS? = nil, capture: CaptureOptions? = nil, explore: ExploreConfiguration? = nil
    ) throws -> TestProxy {
        let recording = try CaptureLoader.load(path: replaying.path)
        var origins: [String] = []
        for exchange in recording.answeredExchanges where !origins.contains(exchange.upstreamRequest!.url.origin) {
            origins.append(exchange.upstreamRequest!.url.origin)
        }
        let chosen = origin ?? (origins.count == 1 ? URL(string: origins[0]) : nil)
        if origin == nil, origins.count > 1 {
            throw RulesError(errors: [
                "\(replaying.path) records \(origins.count) origins (\(origins.joined(separator: ", "))): pass origin:"
            ])
        }
        return try start(
            upstream: chosen, rules: rules, loops: loops,
            tls: tls ?? (origins.contains { $0.hasPrefix("https:") } ? TLS() : nil),
            capture: capture, replay: (recording, settings), explore: explore)
    }

    private static func start(
        upstream: URL?, rules: Rules?, loops: Int, tls: TLS?, capture: CaptureOptions?,
        replay: (Capture, ReplaySettings)?, explore: ExploreConfiguration?
    ) throws -> TestProxy {
        let any = try SocketAddress(parsing: "127.0.0.1:0")
        var listeners = [ListenerConfiguration(address: any, mode: .forward)]
        if let upstream {
            let schemes = tls == nil ? ["http"] : ["http", "https"]
            guard let scheme = upstream.scheme?.lowercased(), schemes.contains(scheme) else {
                throw RulesError(errors: [
                    "upstream must be an \(schemes.joined(separator: " or ")) URL with a host, not \(upstream)"
                        + (tls == nil ? " (https needs the tls parameter)" : "")
                ])
            }
            // The same parser as `--mode reverse:URL`: a path is kept as the upstream's prefix.
            let endpoint: UpstreamEndpoint
            do { endpoint = try UpstreamEndpoint(url: upstream.absoluteString) } catch {
                throw RulesError(errors: ["upstream \(upstream): \(error.description)"])
            }
            listeners.append(ListenerConfiguration(address: any, mode: .reverse(endpoint)))
        }
        var configuration = ServerConfiguration(listeners: listeners, loopCount: loops)
        configuration.explore = explore
        if let tls {
            configuration.tls = try ServerTLSConfiguration(
                authority: CertificateAuthority.makeEphemeral(), upstreamTrustAnchorsFile: tls.upstreamTrustAnchorsFile,
                verifyUpstream: tls.verifyUpstream,
                interception: InterceptionPolicy(
                    intercept: tls.intercept.map(HostGlob.init), ignore: tls.ignore.map(HostGlob.init)))
        }
        let ruleSet = try rules.map(load)
        let fromProfile = ruleSet?.profile?.secretFieldNames ?? (headers: [], bodyFields: [])
        let trace = try TraceRecorder(
            output: .memory,
            redaction: RedactionPolicy(extraHeaderNames: fromProfile.headers, extraBodyFields: fromProfile.bodyFields),
            flushInterval: .zero, capture: capture)
        if let (recording, settings) = replay {
            var settings = settings
            settings.secrets = trace.redaction
            let source = ReplaySource(capture: recording, settings: settings)
            configuration.replay = source
            source.follow(trace)
        }
        let server = ProxyServer(configuration: configuration, trace: trace, ruleSet: ruleSet)
        try server.start()
        let addresses = server.boundAddresses
        return TestProxy(
            server: server,
            baseURL: upstream == nil ? nil : URL(string: "http://\(addresses[1])"),
            proxyURL: URL(string: "http://\(addresses[0])")!)
    }

    private static func load(_ rules: Rules) throws -> RuleSet {
        switch rules {
        case .ruleSet(let set):
            return set
        case .directory(let path):
            let report = RuleSetLoader.load(directory: path)
            guard report.errors.isEmpty else { throw RulesError(errors: report.errors.map(\.description)) }
            return report.ruleSet
        case .files(let files):
            var errors: [String] = []
            var profile: AuthProfile? = nil
            if let text = files["auth-profile.json5"] {
                let (loaded, problems) = RuleSetLoader.loadProfile(text: text, file: "auth-profile.json5")
                profile = loaded
                errors += problems.map(\.description)
            }
            var scenarios: [Scenario] = []
            for (name, text) in files.sorted(by: { $0.key < $1.key }) where name != "auth-profile.json5" {
                let (scenario, problems) = RuleSetLoader.loadScenario(text: text, file: name, profile: profile)
                if let scenario { scenarios.append(scenario) }
                errors += problems.map(\.description)
            }
            guard errors.isEmpty else { throw RulesError(errors: errors) }
            return RuleSet(scenarios: scenarios, profile: profile)
        }
    }

    /// Variables that send a child process's HTTP traffic through the forward listener
    /// (libcurl, and so URLSession on Linux, honour the lowercase spellings; upper case is for
    /// other tools, and an empty `no_proxy` keeps loopback traffic going through the proxy).
    public var environment: [String: String] {
        let url = proxyURL.absoluteString
        return ["http_proxy": url, "https_proxy": url, "HTTP_PROXY": url, "HTTPS_PROXY": url, "no_proxy": ""]
    }

    /// Waits until a flow is held by a `hold` action named `name`; throws `HoldTimeout` after `timeout`.
    public func waitForHold(_ name: String, timeout: Duration = .seconds(10)) async throws -> HeldFlow {
        guard let info = await server.rules.holds.waitForHold(named: name, timeout: timeout) else {
            throw HoldTimeout(name: name, timeout: timeout, held: server.rules.holds.list().map(\.name))
        }
        return HeldFlow(info: info, registry: server.rules.holds)
    }

    /// The holds in place now, oldest first.
    public var holds: [HoldInfo] { server.rules.holds.list() }

    /// Writes a mark into the trace (`cancel job=42`) and fires `mark:<label>` for rules and holds.
    public func mark(_ label: String, _ attributes: [String: String] = [:]) {
        Mark.record(
            label, attributes: attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, trace: server.trace,
            rules: server.rules)
    }

    /// The trace so far, parsed.
    public func trace() throws -> Trace {
        try TraceReader.read(server.trace.memoryContents())
    }

    /// The trace so far as JSON Lines (to save next to a failing test's logs).
    public var traceText: String { server.trace.memoryContents() }

    /// Writes the trace so far to `path`: a capture when the proxy was started with `capture`
    /// (mode 0600 from its creation when it keeps raw secrets, so they are never readable by
    /// others, even for a moment), a trace otherwise. `start(replaying:)` reads it back. Throws
    /// `TraceRecorderError` naming the path when the file cannot be written.
    public func saveCapture(to path: URL) throws {
        try TraceFile.write(
            Array(traceText.utf8), to: path.path, holdsRawSecrets: server.trace.capture?.secrets == .keep)
    }

    /// Checks the trace so far against the session-boundary contract.
    public func checkContract(_ contract: Contract = .default) throws -> ContractReport {
        ContractChecker.check(try trace(), contract: contract)
    }

    /// Stops listening and closes every connection. Safe to call twice.
    public func stop() {
        server.stop()
    }
}

/// A held flow a test can release, answer or fail.
///
/// Each of `release()`, `release(status:)` and `fail()` returns true when it ended the hold and
/// false when the hold had already ended: by its rule's own release (`release: { on:
/// "logout.forwarded" }` in Rules/hold-refresh-until-logout.json5 lets the refresh response go
/// as soon as the logout is forwarded), by its `timeout`, or by an earlier call. False is then
/// no error: the flow went on without the test.
public struct HeldFlow: Sendable {
    /// The hold as the registry saw it when the test waited for it.
    public let info: HoldInfo
    let registry: HoldRegistry

    /// Lets the flow continue. False when the hold had already ended (see ``HeldFlow``).
    @discardableResult
    public func release() -> Bool {
        !registry.end(id: info.id, with: .release(nil)).isEmpty
    }

    /// Answers the flow's client with this response instead. False when the hold had already ended.
    @discardableResult
    public func release(status: Int, headers: [String: String] = [:], body: String = "") -> Bool {
        let response = SyntheticResponse(
            status: status, headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
            body: Array(body.utf8))
        return !registry.end(id: info.id, with: .release(response)).isEmpty
    }

    /// Resets the flow's client connection. False when the hold had already ended.
    @discardableResult
    public func fail() -> Bool {
        !registry.end(id: info.id, with: .fail).isEmpty
    }
}

/// No hold with that name appeared in time.
public struct HoldTimeout: Error, CustomStringConvertible {
    public let name: String
    public let timeout: Duration
    public let held: [String]
    public var description: String {
        "no hold named '\(name)' within \(timeout); held now: \(held.isEmpty ? "none" : held.joined(separator: ", "))"
    }
}
