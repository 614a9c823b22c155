import FaultlineFlow

/// Allocations per input of the two state machines, counted around each input over `iterations`
/// requests after a warm-up: where a request's allocations are made. Not timed.
enum Breakdown {
    static func session(_ piece: SessionPiece, iterations: Int) {
        var piece = piece
        for _ in 0..<100 { piece.iterate() }
        var steps = Steps(
            prefix: "HTTP1ProxySession", names: ["clientDidRead", "upstreamDidConnect", "upstreamDidRead"])
        for _ in 0..<iterations {
            steps.count(0) { piece.clientSends() }
            steps.count(1) { piece.upstreamConnects() }
            steps.count(2) { piece.upstreamAnswers() }
        }
        steps.report(iterations: iterations)
    }

    static func flow(_ piece: FlowPiece, iterations: Int) {
        var piece = piece
        for _ in 0..<100 { piece.iterate() }
        var steps = Steps(
            prefix: "FlowMachine", names: ["init+start+requestEnd", "upstreamConnected", "upstreamHead+Body+End"])
        for _ in 0..<iterations {
            var started: FlowMachine?
            steps.count(0) { started = piece.start() }
            guard var machine = started else { continue }
            steps.count(1) { piece.connect(&machine) }
            steps.count(2) { piece.respond(&machine) }
        }
        steps.report(iterations: iterations)
    }

    /// The running totals of each named step.
    private struct Steps {
        let prefix: String
        let names: [String]
        var allocations: [UInt64]
        var bytes: [UInt64]

        init(prefix: String, names: [String]) {
            self.prefix = prefix
            self.names = names
            allocations = Array(repeating: 0, count: names.count)
            bytes = Array(repeating: 0, count: names.count)
        }

        mutating func count(_ step: Int, _ body: () -> Void) {
            let counted = countAllocations(of: body)
            allocations[step] += counted.allocations
            bytes[step] += counted.bytes
        }

        func report(iterations: Int) {
            for (index, name) in names.enumerated() {
                Report.step(
                    "\(prefix).\(name)", allocations: Double(allocations[index]) / Double(iterations),
                    bytes: Double(bytes[index]) / Double(iterations))
            }
        }
    }
}
