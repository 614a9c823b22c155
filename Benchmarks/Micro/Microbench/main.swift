// faultline-microbench: time and allocations per request of the sans-I/O pieces (the HTTP/1.1
// decoders, the flow machine without and with rules, the HTTP/1.1 client session, the trace writer). It prints JSON
// Lines, one object per result, which Benchmarks/micro turns into a table; it does no I/O but
// that printing and the trace row's writes to /dev/null.
//
//     faultline-microbench [--iterations N] [--runs R] [--only PIECE] [--uncounted] [--no-breakdown]
import FaultlineTrace

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let plan = Plan(iterations: options.iterations, runs: options.runs)

let check = SelfCheck.run()
Report.selfCheck(check)
guard check.passed || options.uncounted else {
    Report.fail("the allocation counter does not see Swift's allocations; its numbers would mean nothing")
}

/// A recorder for the flows' body digests (its key); nothing is recorded into it.
let digests: TraceRecorder
do {
    digests = try TraceRecorder(output: .memory, flushInterval: .zero)
} catch {
    Report.fail("cannot start a memory trace: \(error)")
}

let pieces = [
    RequestDecoderPiece.name, ResponseDecoderPiece.name, FlowPiece.name, RewriteFlowPiece.name, SessionPiece.name,
    TracePiece.name,
]
if let only = options.only, !pieces.contains(only) {
    Report.fail("--only takes one of \(pieces.joined(separator: ", ")), not '\(only)'")
}

/// Measures `piece` and reports it, unless `--only` names another.
func report<P: Piece>(_ piece: P) {
    guard options.wants(piece.name) else { return }
    var piece = piece
    Report.result(measure(&piece, plan))
}

report(RequestDecoderPiece())
report(ResponseDecoderPiece())
report(FlowPiece(trace: digests))
report(RewriteFlowPiece(trace: digests))
report(SessionPiece(trace: digests))

// The trace row encodes what the session traced for one of its (kept-alive) requests.
var sample = SessionPiece(trace: digests)
sample.iterate()
sample.keepsTrace = true
sample.iterate()
if options.wants(TracePiece.name) {
    Report.traced(sample.kept.map(\.kind.rawValue))
    report(TracePiece(entries: sample.kept))
}

// Where the allocations of the two state machines are, input by input.
if options.breakdown, options.wants(SessionPiece.name) {
    Breakdown.session(SessionPiece(trace: digests), iterations: plan.iterations)
}
if options.breakdown, options.wants(FlowPiece.name) {
    Breakdown.flow(FlowPiece(trace: digests), iterations: plan.iterations)
}
