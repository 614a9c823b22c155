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
/// the trace it wrote (in the manner of mitmproxy's Playbook). The log names actions as the
/// tests read them, without the flow IDs (one flow at a time on HTTP/1).
struct Playbook {
    /// A session action other than a write, without its flow ID.
    enum Logged: Equatable, Sendable {
        case connectUpstream(UpstreamEndpoint, fresh: Bool)
        case releaseUpstream
        case closeUpstream
        case shutdownUpstreamWrite
        case shutdownClientWrite
        case closeClient(afterFlush: Bool)
        case setTimer(Timer, Duration)
        case cancelTimer(Timer)
        case resetClient
        case hold(HoldRequest)
        case unregisterHold(FlowID)
        case observed(ObservedEvent)
        case ruleFired(RuleID)
        case duplicate(DuplicateRequest)
        case duplicateBody(Int)
        case duplicateEnd(complete: Bool)
        case throttle(ThrottleSide, bytesPerSecond: Int?)
        case interceptTLS(TLSInterception)
    }

    /// The session's timers by kind.
    enum Timer: Hashable, Sendable {
        case clientIdle, responseHead, flowDelay, holdDeadline, stall, streamPacing

        init(_ timer: SessionTimer) {
            switch timer {
            case .clientIdle: self = .clientIdle
            case .flow(_, .responseHead): self = .responseHead
            case .flow(_, .delay): self = .flowDelay
            case .flow(_, .holdDeadline): self = .holdDeadline
            case .flow(_, .stall): self = .stall
            case .streamPacing: self = .streamPacing
            }
        }
    }

    private(set) var session: HTTP1ProxySession
    let trace: TraceRecorder
    private let driver: DriverServices
    /// Everything the session wrote to the client / upstream so far.
    private(set) var toClient: [UInt8] = []
    private(set) var toUpstream: [UInt8] = []
    /// Every action other than writes, in order.
    private(set) var log: [Logged] = []
    private var nextUpstreamID: UInt64 = 100
    /// A `connectUpstream` has not been answered yet.
    private(set) var connectPending = false
    /// The flow whose upstream was asked for last: upstream input goes to it.
    private var upstreamFlow: FlowID?
    /// The timers armed now, with the flow they belong to.
    private var armed: [Timer: SessionTimer] = [:]

    init(
        mode: ProxyMode = .forward, ruleSet: RuleSet? = nil, configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) {
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

    /// Forgets what was written and logged so far.
    mutating func clear() {
        toClient = []
        toUpstream = []
        log = []
    }

    mutating func takeLog() -> [Logged] {
        defer { log = [] }
        return log
    }

    mutating func client(_ text: String) { client(Array(text.utf8)) }
    mutating func client(_ bytes: [UInt8]) {
        let actions = bytes.withUnsafeBytes { session.clientDidRead($0) }
        record(actions)
    }
    mutating func clientEOF() { record(session.clientDidReadEOF()) }
    mutating func clientClosed() { record(session.clientDidClose()) }
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
    /// Whether the last `.connectUpstream` asked for HTTP/1.1 only.
    private(set) var lastConnectWasHTTP1Only = false

    private mutating func record(_ actions: [ProxyAction]) {
        for action in actions where !driver.record(action) {
            switch action {
            case .writeToClient(let bytes): toClient += bytes
            case .writeToUpstream(_, let bytes): toUpstream += bytes
            case .connectUpstream(let flow, let endpoint, let fresh, let http1Only):
                connectPending = true
                lastConnectWasHTTP1Only = http1Only
                upstreamFlow = flow
                log.append(.connectUpstream(endpoint, fresh: fresh))
            case .hold(let request):
                heldFlow = request.flow
                log.append(.hold(request))
            case .releaseUpstream: log.append(.releaseUpstream)
            case .closeUpstream: log.append(.closeUpstream)
            case .shutdownUpstreamWrite: log.append(.shutdownUpstreamWrite)
            case .shutdownClientWrite: log.append(.shutdownClientWrite)
            case .closeClient(let afterFlush): log.append(.closeClient(afterFlush: afterFlush))
            case .setTimer(let timer, let delay):
                armed[Timer(timer)] = timer
                log.append(.setTimer(Timer(timer), delay))
            case .cancelTimer(let timer):
                armed[Timer(timer)] = nil
                log.append(.cancelTimer(Timer(timer)))
            case .resetClient: log.append(.resetClient)
            case .unregisterHold(let flow): log.append(.unregisterHold(flow))
            case .observed(let event): log.append(.observed(event))
            case .ruleFired(let rule): log.append(.ruleFired(rule))
            case .duplicate(let request): log.append(.duplicate(request))
            case .duplicateBody(_, let bytes): log.append(.duplicateBody(bytes.count))
            case .duplicateEnd(_, let complete): log.append(.duplicateEnd(complete: complete))
            case .throttle(_, let side, let rate): log.append(.throttle(side, bytesPerSecond: rate))
            case .interceptTLS(let interception): log.append(.interceptTLS(interception))
            case .decide(let flow, let question): record(session.ruleDecided(flow: flow, driver.answer(question)))
            case .trace, .stepLineage: break  // recorded by `driver`
            }
        }
    }

    /// The trace so far, parsed back with the trace reader.
    func events() throws -> [TraceEvent] {
        try TraceReader.read(trace.memoryContents()).events
    }

    /// The kinds of the events written so far, in order.
    func eventKinds() throws -> [String] { try events().map(\.kind.rawValue) }

    func didConnect(to host: String, port: Int) -> Bool {
        log.contains { action in
            if case .connectUpstream(let endpoint, _) = action { return endpoint.host == host && endpoint.port == port }
            return false
        }
    }

    func didCloseClient() -> Bool {
        log.contains { if case .closeClient = $0 { return true } else { return false } }
    }
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

extension Playbook {
    func didHold() -> Bool {
        log.contains { if case .hold = $0 { return true } else { return false } }
    }

    func observed() -> [ObservedEvent] {
        log.compactMap { if case .observed(let event) = $0 { return event } else { return nil } }
    }
}
