import FaultlineFlow
import FaultlineRules
import FaultlineTrace

/// `FlowMachine` with the rules of `Benchmarks/run`'s `fl+rewrite` row: 50 rules in five
/// scenario files that never match this request (other hosts, paths, methods, headers) and one
/// that adds a header to every response. The flow asks its rules once per phase and gets the
/// answers on the spot; the rewrite's cost against the `FlowMachine` row is the rules' cost per
/// request.
struct RewriteFlowPiece: Piece {
    static let name = "FlowMachine+rewrite"
    private var flow: FlowPiece

    init(trace: TraceRecorder) {
        let ruleSet = Self.ruleSet()
        flow = FlowPiece(trace: trace, rules: FlowPolicy(ruleSet: ruleSet) { trace.fingerprint($0) })
    }

    mutating func iterate() { flow.iterate() }

    func failure(afterIterations count: Int) -> String? {
        if let failure = flow.failure(afterIterations: count) { return failure }
        // Request and response phase, each asked once per flow.
        guard flow.decisions == 2 * count else {
            return "\(flow.decisions) rule decisions in \(count) iterations, expected two each"
        }
        return nil
    }

    /// The same text `Benchmarks/run` writes into its rules folder.
    static func ruleSet() -> RuleSet {
        var files: [(name: String, text: String)] = (0..<5).map { file in
            let rules = (0..<10).map { index in
                let n = file * 10 + index
                let match =
                    switch n % 4 {
                    case 0: #"{ host: "nowhere-\#(n).invalid" }"#
                    case 1: #"{ path: "/never/\#(n)/**" }"#
                    case 2: #"{ method: "DELETE", path: "/b\#(n)" }"#
                    default: #"{ headers: { "x-never-\#(n)": "yes" } }"#
                    }
                return #"{ name: "r\#(n)", match: \#(match), actions: [{ respond: { status: 503 } }] }"#
            }
            return ("never-\(file).json5", "{ rules: [\n  " + rules.joined(separator: ",\n  ") + "\n] }\n")
        }
        files.append(
            (
                "rewrite-all.json5",
                #"{ rules: [{ name: "tag", phase: "response", "#
                    + #"actions: [{ rewrite: { headers: { add: { "X-Faultline": "rewritten" } } } }] }] }"#
            ))
        let scenarios = files.map { file in
            let (scenario, errors) = RuleSetLoader.loadScenario(text: file.text, file: "rules/" + file.name)
            guard let scenario, errors.isEmpty else { Report.fail("the benchmark's rules do not load: \(errors)") }
            return scenario
        }
        return RuleSet(scenarios: scenarios)
    }
}
