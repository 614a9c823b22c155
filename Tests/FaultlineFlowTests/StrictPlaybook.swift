import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import PlaybookSupport
import Testing

/// Drives one `FlowMachine` and checks every action it emits, in order, in the manner of
/// mitmproxy's strict `Playbook`: each `expect` lists exactly the actions produced since the
/// previous one, rendered by `FlowActionRenderer`. A missing, extra or reordered action fails the
/// test with a diff; so does an action of another flow, any action after `.ended`, and actions
/// still unexpected when the playbook goes away.
///
/// ```swift
/// let play = StrictPlaybook(FlowFixtures.get())
/// play.expect(["trace request.received", "open http://api.test:80", "send head GET /v1/me", "send end"])
/// play.connected()
/// play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
/// ```
///
/// A class, so that its `deinit` can fail the test over actions nobody expected.
final class StrictPlaybook {
    let trace: TraceRecorder
    let policy: FlowPolicy?
    let environment: FlowEnvironment
    /// The flow every action must carry.
    let id: FlowID
    private(set) var machine: FlowMachine?
    var renderer = FlowActionRenderer()

    /// The actions produced since the last `expect`.
    private var pending: [FlowAction] = []
    /// How the flow ended, once `.ended` came.
    private(set) var outcome: FlowOutcome?
    private let createdAt: SourceLocation

    // Everything the flow sent, whatever was expected, for the checks a line does not show.
    private(set) var upstreamBody: [UInt8] = []
    private(set) var clientBody: [UInt8] = []
    private(set) var requestHeads: [OutboundRequest] = []
    private(set) var responseHeads: [HTTPResponseHead] = []
    private(set) var holds: [HoldRequest] = []
    private(set) var duplicates: [DuplicateRequest] = []
    private(set) var traces: [(kind: TraceEventKind, fields: [TraceField])] = []
    /// Every question the flow asked the rules, in order.
    private(set) var questions: [RuleQuestion] = []
    /// Scripted answers to the flow's questions, in place of a rules engine; nil leaves one out.
    let answers: ((RuleQuestion) -> RuleAnswer?)?

    /// A flow for `request` under `rules` (the text inside a scenario's `rules: [...]`, see
    /// `FlowFixtures.ruleSet`), or under `policy` when several flows share one; without either,
    /// the proxy runs without rules. With `scripted` flags and `answers`, no engine runs: the
    /// test answers the flow's questions itself.
    init(
        _ request: FlowRequest, rules: String? = nil, profile: String? = nil, policy: FlowPolicy? = nil,
        scripted: (any FlowRules)? = nil, answers: ((RuleQuestion) -> RuleAnswer?)? = nil,
        bodyLimit: Int = BodyReadLimit.bytes, responseTimeout: Duration = .seconds(60), id: FlowID = FlowID(1),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.answers = answers
        let trace = try! TraceRecorder(output: .memory, flushInterval: .zero)
        self.trace = trace
        if let policy {
            self.policy = policy
        } else if let rules {
            self.policy = FlowPolicy(
                ruleSet: FlowFixtures.ruleSet(rules, profile: profile, sourceLocation: sourceLocation),
                bodyLimit: bodyLimit
            ) { trace.fingerprint($0) }
        } else {
            self.policy = nil
        }
        environment = FlowEnvironment(
            rules: scripted ?? self.policy, responseTimeout: responseTimeout, makeBodyDigest: { trace.makeBodyDigest() }
        )
        self.id = id
        createdAt = sourceLocation
        var machine = FlowMachine(id: id, request: request, environment: environment)
        let actions = machine.start()
        self.machine = machine
        receive(actions, from: "start", at: sourceLocation)
    }

    /// A copy made by a `duplicate` rule, started as flow `id`.
    init(duplicate: DuplicateRequest, id: FlowID, sourceLocation: SourceLocation = #_sourceLocation) {
        answers = nil
        let trace = try! TraceRecorder(output: .memory, flushInterval: .zero)
        self.trace = trace
        policy = nil
        environment = FlowEnvironment(
            rules: nil, responseTimeout: .seconds(60), makeBodyDigest: { trace.makeBodyDigest() })
        self.id = id
        createdAt = sourceLocation
        var machine = FlowMachine(id: id, copying: duplicate, environment: environment)
        let actions = machine.start()
        self.machine = machine
        receive(actions, from: "startDuplicate", at: sourceLocation)
    }

    /// A request refused before it became a flow (`FlowMachine.refuse`): there is no machine.
    init(
        refusing request: FlowRequest, status: Int, code: String, message: String, routed: Bool, id: FlowID = FlowID(1),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        answers = nil
        let trace = try! TraceRecorder(output: .memory, flushInterval: .zero)
        self.trace = trace
        policy = nil
        environment = FlowEnvironment(
            rules: nil, responseTimeout: .seconds(60), makeBodyDigest: { trace.makeBodyDigest() })
        self.id = id
        createdAt = sourceLocation
        machine = nil
        let actions = FlowMachine.refuse(
            id: id, request: request, status: status, code: code, message: message, environment: environment,
            routed: routed)
        receive(actions, from: "refuse", at: sourceLocation)
    }

    deinit {
        guard !pending.isEmpty else { return }
        Issue.record(
            "the flow's last actions were never expected:\n\(render(pending).map { "  \($0)" }.joined(separator: "\n"))",
            sourceLocation: createdAt)
    }

    // MARK: Expectations

    /// Checks that the actions since the last call are exactly `lines`, in order, and consumes
    /// them. Returns them for checks a line does not show.
    @discardableResult
    func expect(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) -> [FlowAction] {
        let actions = pending
        pending = []
        let actual = render(actions)
        if actual != lines {
            Issue.record(
                "the flow's actions differ (- expected, + actual):\n\(LineDiff.diff(lines, actual))",
                sourceLocation: sourceLocation)
        }
        return actions
    }

    /// Checks that nothing happened since the last `expect`.
    func expectNothing(sourceLocation: SourceLocation = #_sourceLocation) {
        expect([], sourceLocation: sourceLocation)
    }

    /// Feeds actions as if an input had produced them: for the tests of the playbook itself.
    func inject(_ actions: [FlowAction], sourceLocation: SourceLocation = #_sourceLocation) {
        receive(actions, from: "inject", at: sourceLocation)
    }

    private func render(_ actions: [FlowAction]) -> [String] {
        actions.map { renderer.line($0, expectedFlow: id) }
    }

    // MARK: Inputs

    func requestBody(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        run("requestBody", sourceLocation) { $0.requestBody(Array(text.utf8)[...]) }
    }

    func requestEnd(trailers: HTTPHeaders? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        run("requestEnd", sourceLocation) { $0.requestEnd(trailers: trailers) }
    }

    func connected(reused: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        let info = UpstreamConnectionInfo(id: ConnectionID(7), remoteAddress: "127.0.0.1:9000", reused: reused)
        run("upstreamConnected", sourceLocation) { $0.upstreamConnected(info) }
    }

    func upstreamInterim(_ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        run("upstreamInterim", sourceLocation) { $0.upstreamInterim(FlowFixtures.head(status)) }
    }

    func upstreamHead(
        _ status: Int, _ headers: [(String, String)] = [], length: FlowBodyLength,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        run("upstreamHead", sourceLocation) { $0.upstreamHead(FlowFixtures.head(status, headers), length: length) }
    }

    func upstreamBody(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        run("upstreamBody", sourceLocation) { $0.upstreamBody(Array(text.utf8)[...]) }
    }

    func upstreamEnd(trailers: HTTPHeaders? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        run("upstreamEnd", sourceLocation) { $0.upstreamEnd(trailers: trailers) }
    }

    func upstreamFailed(_ failure: UpstreamFailure, sourceLocation: SourceLocation = #_sourceLocation) {
        run("upstreamFailed", sourceLocation) { $0.upstreamFailed(failure) }
    }

    func upstreamBroke(code: String, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        run("upstreamBroke", sourceLocation) { $0.upstreamBroke(code: code, message: message) }
    }

    func requestMalformed(status: Int, code: String, message: String, sourceLocation: SourceLocation = #_sourceLocation)
    {
        run("requestMalformed", sourceLocation) { $0.requestMalformed(status: status, code: code, message: message) }
    }

    func fire(_ timer: FlowTimer, sourceLocation: SourceLocation = #_sourceLocation) {
        run("timerFired(\(timer))", sourceLocation) { $0.timerFired(timer) }
    }

    func holdEnded(
        _ outcome: HoldOutcome, by cause: HoldEnding.Cause = .control, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        run("holdEnded", sourceLocation) { $0.holdEnded(HoldEnding(outcome, by: cause)) }
    }

    func clientGone(_ reason: String = "client-closed", sourceLocation: SourceLocation = #_sourceLocation) {
        run("clientGone", sourceLocation) { $0.clientGone(reason: reason) }
    }

    /// A late answer to a question a script left out.
    func decided(_ answer: RuleAnswer, sourceLocation: SourceLocation = #_sourceLocation) {
        run("decided", sourceLocation) { $0.decided(answer) }
    }

    /// Every input once: for checking that an ended flow stays silent.
    func everyInput(sourceLocation: SourceLocation = #_sourceLocation) {
        guard outcome != nil else {
            // A live flow would take these as real (and a request body after its end traps).
            Issue.record("everyInput is for ended flows; this one has not ended", sourceLocation: sourceLocation)
            return
        }
        requestBody("x", sourceLocation: sourceLocation)
        requestEnd(sourceLocation: sourceLocation)
        connected(reused: true, sourceLocation: sourceLocation)
        upstreamInterim(103, sourceLocation: sourceLocation)
        upstreamHead(200, length: .known(1), sourceLocation: sourceLocation)
        upstreamBody("x", sourceLocation: sourceLocation)
        upstreamEnd(sourceLocation: sourceLocation)
        for timer in FlowTimer.allCases { fire(timer, sourceLocation: sourceLocation) }
        holdEnded(.release(nil), sourceLocation: sourceLocation)
        upstreamFailed(.closedBeforeResponse("x"), sourceLocation: sourceLocation)
        upstreamBroke(code: "x", message: "x", sourceLocation: sourceLocation)
        requestMalformed(status: 400, code: "x", message: "x", sourceLocation: sourceLocation)
        clientGone(sourceLocation: sourceLocation)
    }

    private func run(
        _ input: String, _ location: SourceLocation, _ body: (inout FlowMachine) -> [FlowAction]
    ) {
        guard var machine else {
            Issue.record("\(input): there is no machine (a refused request)", sourceLocation: location)
            return
        }
        let actions = body(&machine)
        self.machine = machine
        receive(actions, from: input, at: location)
    }

    private func receive(_ actions: [FlowAction], from input: String, at location: SourceLocation) {
        for action in actions {
            if outcome != nil {
                Issue.record(
                    "\(input) produced '\(renderer.line(action, expectedFlow: id))' after the flow ended",
                    sourceLocation: location)
            }
            record(action)
            pending.append(action)
            if case .decide(_, let question) = action { answer(question, from: input, at: location) }
        }
        if let machine, machine.isEnded != (outcome != nil) {
            Issue.record(
                "after \(input) the machine says isEnded=\(machine.isEnded) but its actions say \(outcome.map { "ended \($0)" } ?? "not ended")",
                sourceLocation: location)
        }
    }

    /// Answers a question as the driver does, at once: with `answers` when the test scripts the
    /// rules, else with the policy's engine. The answer's actions follow the question's line.
    private func answer(_ question: RuleQuestion, from input: String, at location: SourceLocation) {
        questions.append(question)
        let reply: RuleAnswer?
        if let answers {
            reply = answers(question)  // nil leaves the question out, as a driver not done yet
        } else if let policy {
            reply = policy.answer(question)
        } else {
            Issue.record("\(input) asked the rules, and this playbook has none", sourceLocation: location)
            return
        }
        guard let reply else { return }
        receive(machine!.decided(reply), from: "the answer to \(input)", at: location)
    }

    private func record(_ action: FlowAction) {
        switch action {
        case .sendRequestHead(_, let head): requestHeads.append(head)
        case .sendRequestBody(_, let bytes): upstreamBody += bytes
        case .sendResponseHead(_, let head, _, _): responseHeads.append(head)
        case .sendResponseBody(_, let bytes): clientBody += bytes
        case .hold(let request): holds.append(request)
        case .duplicate(let request): duplicates.append(request)
        case .trace(_, let kind, let fields): traces.append((kind, fields))
        case .ended(_, let outcome): self.outcome = outcome
        default: break
        }
    }

    // MARK: What was sent

    var upstreamText: String { String(decoding: upstreamBody, as: UTF8.self) }
    var clientText: String { String(decoding: clientBody, as: UTF8.self) }

    /// The fields of the last trace event of this kind.
    func fields(of kind: TraceEventKind) -> [String: TraceFieldValue] {
        guard let event = traces.last(where: { $0.kind == kind }) else { return [:] }
        return Dictionary(event.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// A string field of the last trace event of this kind, rendered as the lines render it.
    func field(_ key: String, of kind: TraceEventKind) -> String? {
        fields(of: kind)[key].map(FlowActionRenderer.value)
    }
}
