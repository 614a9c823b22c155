import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineRules
import FaultlineTrace

// The control API's request handling is internal to FaultlineServer (its connection, request
// and reply types); the fuzz binary is built with testable imports (Scripts/fuzz) rather than
// widening them for this one caller.
@testable import FaultlineServer

/// The control API as its connection drives it: the input is a client's bytes, decoded by the
/// request decoder; each complete request becomes a `ControlRequest` (path and query split and
/// percent-decoded) and is answered by a fresh `ControlAPI` over a rule runtime with one
/// scenario and a memory trace, its reply serialized as the connection would.
enum ControlAPIFuzz {
    static let token = "fuzz-token-0123456789"

    static let ruleSet: RuleSet = {
        let text = """
            {
              states: ["started", "done"],
              initialState: "started",
              rules: [
                { name: "hold-me", match: { path: "/held" }, actions: [{ hold: { name: "h1", timeout: 5 } }] },
                { name: "fail-me", match: { path: "/fail" }, when: { state: "started" }, actions: [{ fault: "reset" }],
                  then: { state: "done" } },
              ],
            }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "fuzz/control.json5")
        fuzzCheck(errors.isEmpty, "the control target's scenario does not load: \(errors)")
        return RuleSet(scenarios: scenario.map { [$0] } ?? [])
    }()

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let api = makeAPI() else { return }
        var decoder = HTTP1RequestDecoder()
        var plan = SplitPlan(input, salt: 5)
        var head: HTTPRequestHead?
        var body: [UInt8] = []
        let limit = api.configuration.maximumBodyBytes
        for piece in plan.pieces(input.count) + [input.count..<input.count] {
            if piece.isEmpty {
                decoder.receiveEOF()
            } else {
                decoder.receive(UnsafeRawBufferPointer(rebasing: input[piece]))
            }
            while true {
                let event: HTTP1RequestEvent?
                do throws(HTTP1Error) { event = try decoder.nextEvent() } catch { return }
                guard let event else { break }
                switch event {
                case .head(let decoded):
                    head = decoded
                    body = []
                case .body(let bytes):
                    body.append(contentsOf: bytes)
                    if body.count > limit { return }
                case .end:
                    guard let complete = head else { return }
                    head = nil
                    answer(api, complete, body, input)
                }
            }
        }
    }

    private static func makeAPI() -> ControlAPI? {
        guard let trace = try? TraceRecorder(output: .memory, flushInterval: .zero),
            let address = try? SocketAddress(ipAddress: "127.0.0.1", port: 9090)
        else {
            fuzzCheck(false, "no trace recorder or address for the control API")
            return nil
        }
        let policy = FlowPolicy(ruleSet: ruleSet, fingerprint: { _ in "fp:0000" })
        let runtime = RuleRuntime(policy: policy)
        let configuration = ControlConfiguration(address: address, token: token)
        return ControlAPI(
            runtime: runtime, trace: trace, listeners: [.init(address: "127.0.0.1:8080", mode: "forward")],
            configuration: configuration)
    }

    /// Answers one call and checks the answer: a status an HTTP/1 status line can carry, a JSON
    /// value that serializes, and no API call (the web UI aside) answered without the token.
    private static func answer(
        _ api: ControlAPI, _ head: HTTPRequestHead, _ body: [UInt8], _ input: UnsafeRawBufferPointer
    ) {
        guard let request = ControlRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        else { return }
        let status: Int
        switch api.handle(request) {
        case .json(let code, let value, _):
            status = code
            _ = value.jsonBytes()
        case .document(let code, _, _, _):
            status = code
        case .waitForHold, .traceStream, .uiEvents:
            status = 200
        }
        fuzzCheck((100...599).contains(status), "status \(status) for \(head.method) \(head.target)")
        let presentsToken = head.headers.values(name: "authorization").contains { $0.contains(token) }
        if request.path.first != "ui", !presentsToken {
            fuzzCheck(status == 401 || status == 403, "\(status) without the token for \(head.method) \(head.target)")
        }
    }
}
