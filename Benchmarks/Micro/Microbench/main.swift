// faultline-microbench: time and allocations per request of the sans-I/O pieces (the HTTP/1.1
// decoders, the flow machine, the HTTP/1.1 client session, the trace writer). It prints JSON
// Lines, one object per result, which Benchmarks/micro turns into a table; it does no I/O but
// that printing and the trace row's writes to /dev/null.
//
//     faultline-microbench [--iterations N] [--runs R]
import FaultlineTrace

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let plan = Plan(iterations: options.iterations, runs: options.runs)

let check = SelfCheck.run()
Report.selfCheck(check)
guard check.passed else {
    Report.fail("the allocation counter does not see Swift's allocations; its numbers would mean nothing")
}

/// A recorder for the flows' body digests (its key); nothing is recorded into it.
let digests: TraceRecorder
do {
    digests = try TraceRecorder(output: .memory, flushInterval: .zero)
} catch {
    Report.fail("cannot start a memory trace: \(error)")
}

var requestDecoder = RequestDecoderPiece()
var responseDecoder = ResponseDecoderPiece()
var flow = FlowPiece(trace: digests)
var session = SessionPiece(trace: digests)
Report.result(measure(&requestDecoder, plan))
Report.result(measure(&responseDecoder, plan))
Report.result(measure(&flow, plan))
Report.result(measure(&session, plan))

// The trace row encodes what the session traced for one of its (kept-alive) requests.
var sample = SessionPiece(trace: digests)
sample.iterate()
sample.keepsTrace = true
sample.iterate()
var trace = TracePiece(entries: sample.kept)
Report.traced(sample.kept.map(\.kind.rawValue))
Report.result(measure(&trace, plan))

// Where the allocations of the two state machines are, input by input.
Breakdown.session(SessionPiece(trace: digests), iterations: plan.iterations)
Breakdown.flow(FlowPiece(trace: digests), iterations: plan.iterations)
