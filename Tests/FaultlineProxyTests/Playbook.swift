import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import Foundation
import Testing

/// Drives one `HTTP1ProxySession` with no sockets: feed it client and upstream bytes, answer its
/// requests for connections, and read back what it sent each way, the other actions it took and
/// the trace it wrote, in the manner of mitmproxy's strict Playbook. Every driver action other
/// than a write must be expected, in order, with ``expect(_:sourceLocation:)`` (lines without flow
/// IDs, one flow at a time on HTTP/1, see ``ProxyActionLines``); a missing, extra or reordered
/// action fails with a diff, and so do actions left unexpected when the playbook goes away.
///
/// ```swift
/// var play = Playbook()
/// play.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
/// play.expect(["connect http://a.test:80"])
/// ```
struct Playbook {
    /// The session's timers by kind.
    enum Timer: Hashable, Sendable {
        case clientIdle, requestHead, requestBody, responseHead, flowDelay, holdDeadline, stall, streamPacing
        case streamBody

        init(_ timer: SessionTimer) {
            switch timer {
            case .clientIdle: self = .clientIdle
            case .requestHead: self = .requestHead
            case .requestBody: self = .requestBody
            case .flow(_, .responseHead): self = .responseHead
            case .flow(_, .delay): self = .flowDelay
            case .flow(_, .holdDeadline): self = .holdDeadline
            case .flow(_, .stall): self = .stall
            case .streamPacing: self = .streamPacing
            case .streamBody: self = .streamBody
            }
        }
    }

    private(set) var session: HTTP1ProxySession
    let trace: TraceRecorder
    private let driver: DriverServices
    /// Everything the session wrote to the client / upstream so far.
    private(set) var toClient: [UInt8] = []
    private(set) var toUpstream: [UInt8] = []
    /// The actions other than writes not yet expected.
    private let actions: ExpectedActions
    private var nextUpstreamID: UInt64 = 100
    /// A `connectUpstream` has not been answered yet.
    private(set) var connectPending = false
    /// The flow whose upstream was asked for last: upstream input goes to it.
    private var upstreamFlow: FlowID?
    /// The timers armed now, with the flow they belong to.
    private var armed: [Timer: SessionTimer] = [:]

    /// Whether a timer of this kind is armed now.
    func isArmed(_ timer: Timer) -> Bool { armed[timer] != nil }

    init(
        mode: ProxyMode = .forward, ruleSet: RuleSet? = nil, configure: (inout ProxyConfiguration) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        actions = ExpectedActions(namesFlows: false, createdAt: sourceLocation)
        var configuration = ProxyConfiguration(mode: mode)
        configure(&configuration)
        let trace = try! TraceRecorder(output: .memory, flushInterval: .zero)
        self.trace = trace
        let policy = ruleSet.map { ruleSet in FlowPolicy(ruleSet: ruleSet) { trace.fingerprint($0) } }
        configuration.rules = policy
        driver = DriverServices(recorder: trace, policy: policy)
        session = HTTP1ProxySession(
            connectionID: ConnectionID(1), configuration: configuration, tracing: FlowTracing(of: trace),
            flowIDs: IDGenerator())
        record(session.start())
    }

    var clientText: String { String(decoding: toClient, as: UTF8.self) }
    var upstreamText: String { String(decoding: toUpstream, as: UTF8.self) }

    /// Takes what was written to the client so far and clears it.
    mutating func takeClientText() -> String {
        defer { toClient = [] }
        return clientText
    }

    /// Takes what was written upstream so far and clears it.
    mutating func takeUpstreamText() -> String {
        defer { toUpstream = [] }
        return upstreamText
    }

    /// Checks that the driver actions since the last `expect` are exactly `lines`, in order, and
    /// consumes them. Returns them for checks a line does not show.
    @discardableResult
    func expect(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) -> [ProxyAction] {
        actions.expect(lines, sourceLocation: sourceLocation)
    }

    /// Checks that the session took no driver action since the last `expect`.
    func expectNothing(sourceLocation: SourceLocation = #_sourceLocation) {
        actions.expect([], sourceLocation: sourceLocation)
    }

    /// Takes `actions` as if an input had produced them: for the tests of the playbook itself.
    mutating func inject(_ actions: [ProxyAction]) { record(actions) }

    mutating func client(_ text: String) { client(Array(text.utf8)) }
    mutating func client(_ bytes: [UInt8]) {
        let actions = bytes.withUnsafeBytes { session.clientDidRead($0) }
        record(actions)
    }
    mutating func clientEOF() { record(session.clientDidReadEOF()) }
    mutating func clientClosed() { record(session.clientDidClose()) }
    /// The client read nothing for the send timeout (`ClientSession.sendTimedOut`); the driver
    /// closes the connection next (``clientClosed()``).
    mutating func sendTimedOut() { record(session.sendTimedOut()) }
    /// The server is stopping (`ClientSession.shutDown`).
    mutating func shutDown() { record(session.shutDown()) }

    mutating func upstream(_ text: String) { upstream(Array(text.utf8)) }
    mutating func upstream(_ bytes: [UInt8]) {
        guard let flow = upstreamFlow else {
            Issue.record("upstream bytes before any connectUpstream")
            return
        }
        let actions = bytes.withUnsafeBytes { session.upstreamDidRead(flow: flow, $0) }
        record(actions)
    }
    mutating func upstreamEOF() {
        guard let flow = upstreamFlow else { return }
        record(session.upstreamDidReadEOF(flow: flow))
    }
    mutating func upstreamClosed() {
        guard let flow = upstreamFlow else { return }
        record(session.upstreamDidClose(flow: flow))
    }

    /// Answers the pending `connectUpstream` with a connection.
    mutating func connected(reused: Bool = false) {
        connectPending = false
        nextUpstreamID += 1
        let info = UpstreamConnectionInfo(
            id: ConnectionID(nextUpstreamID), remoteAddress: "127.0.0.1:9000", reused: reused)
        guard let flow = upstreamFlow else {
            Issue.record("no connectUpstream to answer")
            return
        }
        record(session.upstreamDidConnect(flow: flow, info))
    }

    /// Answers a pending `connectUpstream`, if there is one.
    mutating func connectIfRequested() {
        if connectPending { connected() }
    }

    mutating func connectFailed(_ failure: UpstreamFailure) {
        connectPending = false
        guard let flow = upstreamFlow else { return }
        record(session.upstreamDidFailToConnect(flow: flow, failure))
    }

    /// Fires an armed timer of this kind (of the flow that armed it).
    mutating func fire(_ timer: Timer) {
        let key = armed[timer] ?? (timer == .clientIdle ? .clientIdle : nil)
        guard let key else {
            Issue.record("timer \(timer) is not armed")
            return
        }
        armed[timer] = nil
        record(session.timerFired(key))
    }

    mutating func endHold(_ outcome: HoldOutcome) {
        guard let flow = heldFlow else {
            Issue.record("no hold to end")
            return
        }
        heldFlow = nil
        record(session.holdEnded(flow: flow, HoldEnding(outcome, by: .control)))
    }

    /// The flow of the last `.hold` action not yet ended.
    private(set) var heldFlow: FlowID?

    private mutating func record(_ batch: [ProxyAction]) {
        for action in batch where !driver.record(action) {
            switch action {
            case .writeToClient(let bytes):
                toClient += bytes
                continue
            case .writeToUpstream(_, let bytes):
                toUpstream += bytes
                continue
            case .decide(let flow, let question):
                record(session.ruleDecided(flow: flow, driver.answer(question)))
                continue
            case .trace, .stepLineage:
                continue  // recorded by `driver`
            case .connectUpstream(let flow, _, _, _):
                connectPending = true
                upstreamFlow = flow
            case .hold(let request): heldFlow = request.flow
            case .setTimer(.requestHead, _):
                // Armed whenever a head arrives in pieces, so every split-input test would list
                // it: kept out of the expected actions, tracked here (HeaderTimeoutTests checks it).
                armed[.requestHead] = .requestHead
                continue
            case .cancelTimer(.requestHead):
                armed[.requestHead] = nil
                continue
            case .setTimer(.requestBody, _):
                // Restarted by every read inside a body, likewise kept out (BodyTimeoutTests).
                armed[.requestBody] = .requestBody
                continue
            case .cancelTimer(.requestBody):
                armed[.requestBody] = nil
                continue
            case .setTimer(let timer, _): armed[Timer(timer)] = timer
            case .cancelTimer(let timer): armed[Timer(timer)] = nil
            case .releaseUpstream, .closeUpstream, .shutdownUpstreamWrite, .shutdownClientWrite, .closeClient,
                .resetClient, .unregisterHold, .observed, .ruleFired, .duplicate, .duplicateBody, .duplicateEnd,
                .throttle, .interceptTLS:
                break
            }
            actions.append(action)
        }
    }

    /// The trace so far, parsed back with the trace reader.
    func events() throws -> [TraceEvent] {
        try TraceReader.read(trace.memoryContents()).events
    }

    /// The kinds of the events written so far, in order.
    func eventKinds() throws -> [String] { try events().map(\.kind.rawValue) }
}

extension DuplicateRequest {
    /// The copy as it goes upstream on HTTP/1.1 (head and body).
    var bytes: [UInt8] {
        var codec = HTTP1UpstreamCodec(limits: .default, via: "faultline")
        codec.didConnect(UpstreamConnectionInfo(id: ConnectionID(0), remoteAddress: "", reused: false))
        return codec.sendHead(outbound) + codec.sendBody(body[...]) + codec.sendEnd(trailers: nil)
    }
}

/// Splits a raw HTTP message into its head lines and body for readable assertions.
struct ParsedMessage {
    let startLine: String
    let headers: [(String, String)]
    let body: String

    init(_ text: String) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let headLines = parts[0].components(separatedBy: "\r\n")
        startLine = headLines[0]
        headers = headLines.dropFirst().map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = parts.dropFirst().joined(separator: "\r\n\r\n")
    }

    func values(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }
}

/// A request decoded back from the bytes the session sent upstream.
struct DecodedRequest: Equatable {
    var head: HTTPRequestHead?
    var body = ""
    var trailers: HTTPHeaders?

    init(_ bytes: [UInt8]) throws {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes)
        var bodyBytes: [UInt8] = []
        decoding: while let event = try decoder.nextEvent() {
            switch event {
            case .head(let head): self.head = head
            case .body(let slice): bodyBytes += slice
            case .end(let trailers):
                self.trailers = trailers
                break decoding
            }
        }
        body = String(decoding: bodyBytes, as: UTF8.self)
    }
}

/// A rule set from JSON5 text, as a rule file would hold it (failing the test on load errors).
func ruleSet(_ scenario: String, profile: String? = nil) -> RuleSet {
    var loadedProfile: AuthProfile? = nil
    if let profile {
        let (value, errors) = RuleSetLoader.loadProfile(text: profile, file: "auth-profile.json5")
        #expect(errors.isEmpty, "\(errors)")
        loadedProfile = value
    }
    let (value, errors) = RuleSetLoader.loadScenario(text: scenario, file: "test.json5", profile: loadedProfile)
    #expect(errors.isEmpty, "\(errors)")
    return RuleSet(scenarios: value.map { [$0] } ?? [], profile: loadedProfile)
}
