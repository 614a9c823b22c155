import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// `FlowMachine` without rules: one flow per iteration (the proxy makes one per request) taken
/// from start to its end (head and end in, upstream connected, response head, body, end), every
/// action read and its array handed back (`recycle`), as the proxy's hosts do. Its trace entries
/// are dropped; the trace encoder has its own row.
///
/// With `rules` its questions are answered on the spot, as the proxy's driver does
/// (`FlowPolicy.answer`, then `decided`): `RewriteFlowPiece`.
struct FlowPiece: Piece {
    static let name = "FlowMachine"
    private let request = Fixtures.flowRequest()
    private let environment: FlowEnvironment
    private let rules: FlowPolicy?
    private var nextID: UInt64 = 1
    private var ended = 0
    private var delivered = 0
    private(set) var decisions = 0

    init(trace: TraceRecorder, rules: FlowPolicy? = nil) {
        self.rules = rules
        environment = FlowEnvironment(
            rules: rules, responseTimeout: .seconds(60), makeBodyDigest: { trace.makeBodyDigest() })
    }

    mutating func iterate() {
        var machine = start()
        connect(&machine)
        respond(&machine)
    }

    /// The flow of the next request, started: the request head, then its end (the HTTP/1.1
    /// session calls `requestEnd` for a bodiless GET too, when the decoder says `.end`).
    mutating func start() -> FlowMachine {
        nextID += 1
        var machine = FlowMachine(id: FlowID(nextID), request: request, environment: environment)
        consume(machine.start(), &machine)
        consume(machine.requestEnd(trailers: nil), &machine)
        return machine
    }

    mutating func connect(_ machine: inout FlowMachine) {
        consume(machine.upstreamConnected(Fixtures.upstream), &machine)
    }

    /// The response head, its body in one piece, and its end.
    mutating func respond(_ machine: inout FlowMachine) {
        consume(
            machine.upstreamHead(Fixtures.responseHead, length: .known(Int64(Fixtures.responseBody.count))), &machine)
        consume(machine.upstreamBody(Fixtures.responseBody[...]), &machine)
        consume(machine.upstreamEnd(trailers: nil), &machine)
    }

    private mutating func consume(_ actions: consuming [FlowAction], _ machine: inout FlowMachine) {
        var answer: RuleAnswer?
        for index in actions.indices {
            switch actions[index] {
            case .sendResponseBody(_, let bytes): delivered += bytes.count
            case .ended: ended += 1
            case .decide(_, let question):
                guard let rules else { fatalError("a flow without rules asked the rules") }
                answer = rules.answer(question)
            default: break
            }
        }
        machine.recycle(actions)
        if let answer {
            decisions += 1
            consume(machine.decided(answer), &machine)
        }
    }

    func failure(afterIterations count: Int) -> String? {
        guard ended == count, delivered == count * Fixtures.responseBody.count else {
            return "\(ended) flows ended, \(delivered) body bytes delivered in \(count) iterations"
        }
        return nil
    }
}
