import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import Testing

/// Drives one `HTTP2ProxySession` with no sockets, as `Playbook` drives an HTTP/1 one: an
/// in-memory `HTTP2Connection(role: .client)` is the client, and every flow's upstream is
/// answered by the test.
///
/// The client's frames go to the session's `clientDidRead`, and the session's `.writeToClient`
/// bytes to the client connection's `receive`, until neither side has anything more to say
/// (``pump()``); every input method pumps. What the client saw is kept per stream
/// (``StreamView``). Upstreams are kept per flow (``Upstream``): the test answers each
/// `connectUpstream`, feeds response bytes and reads what the flow wrote. Every driver action
/// other than a write (connects, releases and closes, timers, holds, `closeClient`) must be
/// expected, in order, with ``expect(_:sourceLocation:)``, as lines naming their flow (see
/// ``ProxyActionLines``): a missing, extra or reordered action fails with a diff, and so do
/// actions left unexpected when the playbook goes away. The trace is in memory.
struct HTTP2Playbook {
    /// What the client connection saw on one stream.
    struct StreamView: Sendable {
        /// Every response header block before the trailers, in order (1xx heads included).
        var heads: [[HTTP2Header]] = []
        /// The bytes of every DATA frame, concatenated.
        var body: [UInt8] = []
        /// How many `.data` events carried bytes.
        var dataEvents = 0
        /// The trailers, if the stream ended with them.
        var trailers: [HTTP2Header]?
        /// END_STREAM came (on a head, DATA or the trailers).
        var ended = false
        /// The proxy reset the stream with this code (RST_STREAM, RFC 9113 §6.4).
        var reset: HTTP2ErrorCode?
        /// The client connection closed the stream with this code.
        var closed: HTTP2ErrorCode?

        /// The final (non-1xx) response head.
        var finalHead: [HTTP2Header]? {
            heads.last { head in (HTTP2Headers.status(head) ?? 0) >= 200 }
        }

        /// The final response's `:status`.
        var status: Int? { finalHead.flatMap(HTTP2Headers.status) }

        /// The values of the final head's field `name` (lowercase, as HTTP/2 sends it).
        func field(_ name: String) -> [String] {
            (finalHead ?? []).filter { $0.name == name }.map(\.value)
        }

        /// The names of the final head's fields, pseudo-headers included.
        var fieldNames: [String] { (finalHead ?? []).map(\.name) }

        /// The body as UTF-8 text.
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// One flow's upstream connection, as the driver would keep it.
    struct Upstream: Sendable {
        /// Where the flow asked to connect (the last `connectUpstream`).
        var endpoint: UpstreamEndpoint
        /// The last `connectUpstream` asked for a fresh connection.
        var fresh: Bool
        /// How many times the flow asked for a connection.
        var connectRequests = 1
        /// A `connectUpstream` is waiting for ``HTTP2Playbook/connected(flow:reused:)`` or
        /// ``HTTP2Playbook/connectFailed(flow:_:)``.
        var pending = true
        /// Every byte the session wrote to this upstream.
        var written: [UInt8] = []
        /// The session released the connection to the pool.
        var released = false
        /// The session closed the connection.
        var closed = false

        /// What was written, as text.
        var writtenText: String { String(decoding: written, as: UTF8.self) }
    }

    /// The session under test.
    private(set) var session: HTTP2ProxySession
    /// The session's configuration, as given to it.
    let configuration: ProxyConfiguration
    /// The session's trace, in memory (read it with ``events()``).
    let trace: TraceRecorder
    private let driver: DriverServices
    /// The in-memory HTTP/2 client.
    let client: HTTP2Connection
    /// Whether the client credits every DATA byte it receives at once (`consumed`). Turn it off
    /// to keep its windows closed; credit with ``credit(stream:bytes:)``.
    var clientConsumes = true
    /// What the client saw, by stream.
    private(set) var streams: [Int32: StreamView] = [:]
    /// Every event the client connection reported, in order.
    private(set) var clientEvents: [HTTP2Event] = []
    /// DATA bytes the client received and has not credited, by stream.
    private(set) var uncredited: [Int32: Int] = [:]
    /// Every flow's upstream, by flow.
    private(set) var upstreams: [FlowID: Upstream] = [:]
    /// The flows in the order they first asked for an upstream.
    private(set) var flowsByConnectOrder: [FlowID] = []
    /// The actions other than writes not yet expected.
    private let actions: ExpectedActions
    /// The holds registered and not ended, by flow.
    private(set) var holds: [FlowID: HoldRequest] = [:]
    /// The timers armed now.
    private(set) var armed: Set<SessionTimer> = []
    /// The session asked to close the client connection.
    private(set) var clientConnectionClosed = false
    /// How many GOAWAY frames the client had received when the session asked to close it (so a
    /// test can tell the GOAWAY went out first).
    private(set) var goAwaysBeforeClose: Int?
    private var nextUpstreamID: UInt64 = 100

    /// The fixed upstream of the default reverse listener.
    static let origin = UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 3000)

    /// A session on a reverse listener to ``origin`` (or `mode`), optionally with rules, and a
    /// client that has exchanged prefaces and SETTINGS with it (unless `handshake` is false).
    init(
        mode: ProxyMode = .reverse(HTTP2Playbook.origin), ruleSet: RuleSet? = nil,
        clientLimits: HTTP2Connection.Limits = HTTP2Connection.Limits(),
        sessionLimits: HTTP2Connection.Limits = HTTP2Connection.Limits(), handshake: Bool = true,
        configure: (inout ProxyConfiguration) -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        actions = ExpectedActions(namesFlows: true, createdAt: sourceLocation)
        var configuration = ProxyConfiguration(mode: mode)
        configure(&configuration)
        let trace = try TraceRecorder(output: .memory, flushInterval: .zero)
        self.trace = trace
        self.configuration = configuration
        let policy = ruleSet.map { ruleSet in FlowPolicy(ruleSet: ruleSet) { trace.fingerprint($0) } }
        configuration.rules = policy
        driver = DriverServices(recorder: trace, policy: policy)
        session = try HTTP2ProxySession(
            connectionID: ConnectionID(1), configuration: configuration, tracing: FlowTracing(of: trace),
            flowIDs: IDGenerator(), limits: sessionLimits)
        client = try HTTP2Connection(role: .client, limits: clientLimits)
        record(session.start())
        if handshake { pump() }
    }

    // MARK: The client

    /// Moves bytes between the client and the session until the client has nothing to send.
    mutating func pump() {
        for _ in 0..<10_000 {
            let bytes = client.takeOutput()
            take(client.takeEvents())
            guard !bytes.isEmpty else { return }
            feed(bytes)
        }
        Issue.record("the client and the session never went quiet")
    }

    /// Takes the client's pending output without giving it to the session (to reorder or alter
    /// it; hand it over with ``feed(_:)``).
    mutating func takeClientOutput() -> [UInt8] {
        let bytes = client.takeOutput()
        take(client.takeEvents())
        return bytes
    }

    /// Gives the session bytes as if the client had sent them (no pump). Once the session is
    /// closed the driver reads nothing more, so neither does this.
    mutating func feed(_ bytes: [UInt8]) {
        guard !session.isClosed else { return }
        record(bytes.withUnsafeBytes { session.clientDidRead($0) })
    }

    /// Starts a request on a new client stream and pumps; returns the stream ID. Without `body`
    /// the HEADERS end the stream unless `endStream` is false (the body follows with ``send``).
    /// `fields` are regular fields, after `:method`, `:scheme`, `:authority`, `:path`.
    @discardableResult
    mutating func request(
        _ method: String = "GET", _ path: String, authority: String = "app.test", scheme: String = "http",
        fields: [(String, String)] = [], body: String? = nil, endStream: Bool = true
    ) throws -> Int32 {
        var block = [
            HTTP2Header(":method", method), HTTP2Header(":scheme", scheme), HTTP2Header(":authority", authority),
        ]
        block.append(HTTP2Header(":path", path))
        block += fields.map { HTTP2Header($0.0, $0.1) }
        return try request(headers: block, body: body, endStream: endStream)
    }

    /// Starts a request with exactly this header block (pseudo-headers included) and pumps.
    @discardableResult
    mutating func request(headers: [HTTP2Header], body: String? = nil, endStream: Bool = true) throws -> Int32 {
        let id = try client.startRequest(headers: headers, endStream: body == nil && endStream)
        streams[id] = StreamView()
        if let body { client.sendData(stream: id, Array(body.utf8)[...], endStream: endStream) }
        pump()
        return id
    }

    /// Sends request body bytes on `stream` and pumps.
    mutating func send(stream: Int32, _ text: String, endStream: Bool = false) {
        client.sendData(stream: stream, Array(text.utf8)[...], endStream: endStream)
        pump()
    }

    /// Ends the request on `stream` with trailers and pumps.
    mutating func sendTrailers(stream: Int32, _ fields: [(String, String)]) {
        client.sendTrailers(stream: stream, headers: fields.map { HTTP2Header($0.0, $0.1) })
        pump()
    }

    /// The client resets `stream` (RST_STREAM) and pumps.
    mutating func reset(stream: Int32, code: HTTP2ErrorCode = .cancel) {
        client.reset(stream: stream, code: code)
        pump()
    }

    /// The client sends GOAWAY and pumps.
    mutating func goAway(code: HTTP2ErrorCode = .noError) {
        client.goAway(code: code)
        pump()
    }

    /// The client credits `bytes` of `stream`'s DATA (all it has not credited when nil) and pumps.
    mutating func credit(stream: Int32, bytes: Int? = nil) {
        let count = bytes ?? uncredited[stream, default: 0]
        client.consumed(stream: stream, bytes: count)
        uncredited[stream, default: 0] -= count
        pump()
    }

    /// Opens a stream whose request head the client connection could never send (nghttp2 checks
    /// and lowercases what it sends): `fields`, pseudo-headers included, as written, encoded as
    /// HPACK literals that are never indexed (RFC 7541 §6.2.3). The client connection opens the
    /// stream with a placeholder head that touches no HPACK table, and the placeholder's HEADERS
    /// frame is swapped for the hand-built one, so both HPACK contexts stay in step and the
    /// client still sees the answer. Pumps; returns the stream ID.
    mutating func malformedRequest(_ fields: [(String, String)], endStream: Bool = true) throws -> Int32 {
        let placeholder = [
            HTTP2Header(":method", "GET", neverIndexed: true), HTTP2Header(":scheme", "http", neverIndexed: true),
            HTTP2Header(":authority", "placeholder.test", neverIndexed: true),
            HTTP2Header(":path", "/", neverIndexed: true),
        ]
        let id = try client.startRequest(headers: placeholder, endStream: endStream)
        streams[id] = StreamView()
        let output = takeClientOutput()
        var swapped: [UInt8] = []
        var offset = 0
        if output.starts(with: HTTP2PrefaceSniffer.preface) {
            swapped = HTTP2PrefaceSniffer.preface
            offset = HTTP2PrefaceSniffer.preface.count
        }
        var replaced = false
        while offset + 9 <= output.count {
            let length = Int(output[offset]) << 16 | Int(output[offset + 1]) << 8 | Int(output[offset + 2])
            let type = output[offset + 3]
            let stream =
                Int32(output[offset + 5] & 0x7f) << 24 | Int32(output[offset + 6]) << 16
                | Int32(output[offset + 7]) << 8 | Int32(output[offset + 8])
            let end = offset + 9 + length
            if type == 0x1, stream == id {
                swapped += Self.headersFrame(stream: id, fields: fields, endStream: endStream)
                replaced = true
            } else {
                swapped += output[offset..<end]
            }
            offset = end
        }
        #expect(replaced, "the placeholder HEADERS frame was not found")
        feed(swapped)
        pump()
        return id
    }

    /// A HEADERS frame (END_HEADERS, and END_STREAM if asked) whose block is `fields` as literal
    /// never-indexed fields with literal names, no Huffman coding (RFC 7541 §6.2.3).
    static func headersFrame(stream: Int32, fields: [(String, String)], endStream: Bool) -> [UInt8] {
        func string(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return integer(bytes.count, prefixBits: 7, first: 0) + bytes
        }
        func integer(_ value: Int, prefixBits: Int, first: UInt8) -> [UInt8] {
            let limit = (1 << prefixBits) - 1
            guard value >= limit else { return [first | UInt8(value)] }
            var bytes = [first | UInt8(limit)]
            var rest = value - limit
            while rest >= 128 {
                bytes.append(UInt8(rest % 128) | 0x80)
                rest /= 128
            }
            bytes.append(UInt8(rest))
            return bytes
        }
        var block: [UInt8] = []
        for (name, value) in fields { block += [0x10] + string(name) + string(value) }
        let id = UInt32(stream)
        let header: [UInt8] = [
            UInt8(truncatingIfNeeded: block.count >> 16), UInt8(truncatingIfNeeded: block.count >> 8),
            UInt8(truncatingIfNeeded: block.count), 0x1, 0x4 | (endStream ? 0x1 : 0),
            UInt8(truncatingIfNeeded: id >> 24), UInt8(truncatingIfNeeded: id >> 16),
            UInt8(truncatingIfNeeded: id >> 8),
            UInt8(truncatingIfNeeded: id),
        ]
        return header + block
    }

    /// The client's sending side ends (FIN).
    mutating func clientEOF() {
        record(session.clientDidReadEOF())
        pump()
    }

    /// The client connection is gone.
    mutating func clientClosed() { record(session.clientDidClose()) }

    /// The client read nothing for the send timeout (`ClientSession.sendTimedOut`); the driver
    /// closes the connection next (``clientClosed()``).
    mutating func sendTimedOut() { record(session.sendTimedOut()) }

    /// The server is stopping (`ClientSession.shutDown`); pumps.
    mutating func shutDown() {
        record(session.shutDown())
        pump()
    }

    /// What the client saw on `stream` (an empty view for a stream it never heard of).
    func stream(_ id: Int32) -> StreamView { streams[id] ?? StreamView() }

    /// The GOAWAY frames the client received, as (last stream ID, code, debug data).
    var goAways: [(lastStreamID: Int32, code: HTTP2ErrorCode, debug: String)] {
        clientEvents.compactMap { event in
            if case .goAway(let last, let code, let debug) = event { return (last, code, debug) } else { return nil }
        }
    }

    /// The proxy's SETTINGS as the client saw them.
    var proxySettings: [HTTP2Setting]? {
        clientEvents.lazy.compactMap { if case .settings(let settings) = $0 { return settings } else { return nil } }
            .first
    }

    private mutating func take(_ events: [HTTP2Event]) {
        clientEvents += events
        for event in events {
            switch event {
            case .headers(let id, let headers, let endStream):
                streams[id, default: StreamView()].heads.append(headers)
                if endStream { streams[id, default: StreamView()].ended = true }
            case .data(let id, let bytes, let endStream):
                streams[id, default: StreamView()].body += bytes
                if !bytes.isEmpty { streams[id, default: StreamView()].dataEvents += 1 }
                if endStream { streams[id, default: StreamView()].ended = true }
                if clientConsumes {
                    client.consumed(stream: id, bytes: bytes.count)
                } else {
                    uncredited[id, default: 0] += bytes.count
                }
            case .trailers(let id, let headers):
                streams[id, default: StreamView()].trailers = headers
                streams[id, default: StreamView()].ended = true
            case .streamReset(let id, let code):
                streams[id, default: StreamView()].reset = code
            case .streamClosed(let id, let code):
                streams[id, default: StreamView()].closed = code
            case .streamError, .windowAvailable, .settings, .goAway, .connectionError:
                continue
            }
        }
    }

    // MARK: Upstreams

    /// The flow of the request on `stream`, from its `request.received` event.
    func flow(ofStream stream: Int32) throws -> FlowID {
        let received = try events().first { $0.kind == .requestReceived && $0.int("stream") == Int64(stream) }
        return try #require(received?.flow, "no request.received for stream \(stream)")
    }

    /// The upstream of `flow` (failing the test if it never asked for one).
    func upstream(of flow: FlowID) throws -> Upstream {
        try #require(upstreams[flow], "\(flow) never asked for an upstream")
    }

    /// The request `flow` wrote upstream, decoded.
    func upstreamRequest(of flow: FlowID) throws -> DecodedRequest {
        try DecodedRequest(upstream(of: flow).written)
    }

    /// Answers `flow`'s pending `connectUpstream` with a connection.
    mutating func connected(flow: FlowID, reused: Bool = false) {
        guard upstreams[flow]?.pending == true else {
            Issue.record("\(flow) has no connectUpstream to answer")
            return
        }
        upstreams[flow]!.pending = false
        nextUpstreamID += 1
        let info = UpstreamConnectionInfo(
            id: ConnectionID(nextUpstreamID), remoteAddress: "127.0.0.1:3000", reused: reused)
        record(session.upstreamDidConnect(flow: flow, info))
        pump()
    }

    /// Answers `flow`'s pending `connectUpstream` with a failure.
    mutating func connectFailed(flow: FlowID, _ failure: UpstreamFailure) {
        guard upstreams[flow]?.pending == true else {
            Issue.record("\(flow) has no connectUpstream to answer")
            return
        }
        upstreams[flow]!.pending = false
        record(session.upstreamDidFailToConnect(flow: flow, failure))
        pump()
    }

    /// Bytes from `flow`'s upstream.
    mutating func upstream(flow: FlowID, _ text: String) { upstream(flow: flow, Array(text.utf8)) }

    /// Bytes from `flow`'s upstream.
    mutating func upstream(flow: FlowID, _ bytes: [UInt8]) {
        record(bytes.withUnsafeBytes { session.upstreamDidRead(flow: flow, $0) })
        pump()
    }

    /// `flow`'s upstream sent FIN.
    mutating func upstreamEOF(flow: FlowID) {
        record(session.upstreamDidReadEOF(flow: flow))
        pump()
    }

    /// The driver tells how much of `flow`'s request it could not get into the upstream socket
    /// yet (over its high watermark, or back under it).
    mutating func upstreamBacklog(flow: FlowID, bytes: Int) {
        record(session.upstreamBacklogChanged(flow: flow, bytes: bytes))
        pump()
    }

    /// `flow`'s upstream connection closed.
    mutating func upstreamClosed(flow: FlowID) {
        record(session.upstreamDidClose(flow: flow))
        pump()
    }

    // MARK: Timers and holds

    /// Fires the armed timer of this kind (of `flow`, when given); fails the test if none is armed.
    mutating func fire(_ kind: Playbook.Timer, flow: FlowID? = nil) {
        let timer = armed.first { timer in
            guard Playbook.Timer(timer) == kind else { return false }
            guard let flow else { return true }
            if case .flow(let id, _) = timer { return id == flow }
            return false
        }
        guard let timer else {
            Issue.record("no \(kind) timer is armed\(flow.map { " for \($0)" } ?? "")")
            return
        }
        armed.remove(timer)
        record(session.timerFired(timer))
        pump()
    }

    /// Whether a timer of this kind (of `flow`, when given) is armed.
    func isArmed(_ kind: Playbook.Timer, flow: FlowID? = nil) -> Bool {
        armed.contains { timer in
            guard Playbook.Timer(timer) == kind else { return false }
            guard let flow else { return true }
            if case .flow(let id, _) = timer { return id == flow }
            return false
        }
    }

    /// Ends `flow`'s hold as the control API would.
    mutating func endHold(flow: FlowID, _ outcome: HoldOutcome) {
        guard holds.removeValue(forKey: flow) != nil else {
            Issue.record("\(flow) is not held")
            return
        }
        record(session.holdEnded(flow: flow, HoldEnding(outcome, by: .control)))
        pump()
    }

    // MARK: The session's state

    /// `session.isClosed`.
    var sessionIsClosed: Bool { session.isClosed }
    /// `session.closeReason`.
    var closeReason: String? { session.closeReason }
    /// `session.wantsClientReadsPaused`.
    var clientReadsPaused: Bool { session.wantsClientReadsPaused }
    /// `session.wantsUpstreamReadsPaused(flow:)`: the driver would stop reading `flow`'s upstream.
    func upstreamReadsPaused(_ flow: FlowID) -> Bool { session.wantsUpstreamReadsPaused(flow: flow) }

    // MARK: The trace

    /// The trace so far, parsed back with the trace reader.
    func events() throws -> [TraceEvent] {
        try TraceReader.read(trace.memoryContents()).events
    }

    /// The events of `flow`.
    func events(of flow: FlowID) throws -> [TraceEvent] { try events().filter { $0.flow == flow } }

    /// The kinds of `flow`'s events, in order.
    func eventKinds(of flow: FlowID) throws -> [String] { try events(of: flow).map(\.kind.rawValue) }

    // MARK: Actions

    /// Checks that the driver actions since the last `expect` are exactly `lines`, in order, and
    /// consumes them. Returns them for checks a line does not show.
    @discardableResult
    func expect(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) -> [ProxyAction] {
        actions.expect(lines, sourceLocation: sourceLocation)
    }

    /// Checks that the driver actions since the last `expect` are `lines`, then every group of
    /// `groups` in any order (see ``ExpectedActions/expect(_:thenInAnyOrder:sourceLocation:)``).
    @discardableResult
    func expect(_ lines: [String], thenInAnyOrder groups: [[String]], sourceLocation: SourceLocation = #_sourceLocation)
        -> [ProxyAction]
    {
        actions.expect(lines, thenInAnyOrder: groups, sourceLocation: sourceLocation)
    }

    /// Checks that the session took no driver action since the last `expect`.
    func expectNothing(sourceLocation: SourceLocation = #_sourceLocation) {
        actions.expect([], sourceLocation: sourceLocation)
    }

    /// Takes `actions` as if an input had produced them: for the tests of the playbook itself.
    mutating func inject(_ actions: [ProxyAction]) { record(actions) }

    private mutating func record(_ batch: [ProxyAction]) {
        for action in batch where !driver.record(action) {
            switch action {
            case .writeToClient(let bytes):
                take(client.receive(bytes))
                continue
            case .writeToUpstream(let flow, let bytes):
                if upstreams[flow] == nil || upstreams[flow]!.pending {
                    Issue.record("\(flow) wrote upstream before its connection existed")
                }
                upstreams[flow, default: Upstream(endpoint: Self.origin, fresh: false)].written += bytes
                continue
            case .connectUpstream(let flow, let endpoint, let fresh, _):
                if var existing = upstreams[flow] {
                    existing.endpoint = endpoint
                    existing.fresh = fresh
                    existing.connectRequests += 1
                    existing.pending = true
                    upstreams[flow] = existing
                } else {
                    upstreams[flow] = Upstream(endpoint: endpoint, fresh: fresh)
                    flowsByConnectOrder.append(flow)
                }
            case .releaseUpstream(let flow): upstreams[flow]?.released = true
            case .closeUpstream(let flow): upstreams[flow]?.closed = true
            case .closeClient:
                clientConnectionClosed = true
                if goAwaysBeforeClose == nil { goAwaysBeforeClose = goAways.count }
            case .setTimer(let timer, _): armed.insert(timer)
            case .cancelTimer(let timer): armed.remove(timer)
            case .hold(let request): holds[request.flow] = request
            case .unregisterHold(let flow): holds[flow] = nil
            case .shutdownUpstreamWrite, .shutdownClientWrite, .resetClient, .observed, .ruleFired, .duplicate,
                .duplicateBody, .duplicateEnd, .throttle, .interceptTLS:
                break
            case .decide(let flow, let question):
                record(session.ruleDecided(flow: flow, driver.answer(question)))
                continue
            case .trace, .stepLineage:
                continue  // recorded by `driver`
            }
            actions.append(action)
        }
    }
}

/// Short descriptions for test failures (the session's own would print every stream's codec).
extension HTTP2Playbook: CustomStringConvertible {
    var description: String {
        let streamText = streams.keys.sorted().map { "\($0): \(streams[$0]!)" }.joined(separator: ", ")
        return
            "HTTP2Playbook(streams: [\(streamText)], upstreams: \(upstreams.keys.sorted()))"
    }
}

extension HTTP2Playbook.StreamView: CustomStringConvertible {
    var description: String {
        var parts = ["status \(status.map(String.init) ?? "none")", "\(body.count) body bytes"]
        if let trailers { parts.append("trailers \(trailers)") }
        if ended { parts.append("ended") }
        if let reset { parts.append("reset \(reset)") }
        if let closed { parts.append("closed \(closed)") }
        return "(" + parts.joined(separator: ", ") + ")"
    }
}

extension HTTP2Playbook.Upstream: CustomStringConvertible {
    var description: String {
        "Upstream(\(endpoint), \(pending ? "pending" : "answered"), \(written.count) bytes written"
            + "\(released ? ", released" : "")\(closed ? ", closed" : ""))"
    }
}
