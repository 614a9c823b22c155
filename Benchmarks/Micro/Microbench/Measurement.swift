import AllocationCounter

/// One piece under measurement: `iterate()` handles one request, as the proxy would.
protocol Piece {
    /// The name the table shows, and `--only` takes.
    static var name: String { get }
    /// One request's worth of work.
    mutating func iterate()
    /// Checks, after the runs, that every iteration did the whole request (a benchmark of a
    /// piece that stopped early measures nothing); nil when it did, else what went wrong.
    func failure(afterIterations count: Int) -> String?
}

extension Piece {
    var name: String { Self.name }
}

/// What one piece cost per request.
struct Result {
    let name: String
    /// The median over the runs of each run's time divided by its iterations.
    let nanosecondsPerRequest: Double
    /// Over all the measured iterations: malloc-family calls and the bytes they asked for.
    let allocationsPerRequest: Double
    let bytesPerRequest: Double
    let freesPerRequest: Double
}

/// How long and how often to measure.
struct Plan {
    var iterations: Int
    var runs: Int
    /// Iterations before the first run, so caches, pools and buffers have their steady size.
    var warmUp: Int { max(iterations / 10, 100) }
}

/// Runs `piece` for `plan.warmUp` iterations, then `plan.runs` times `plan.iterations`, counting
/// time and allocations around each run only (reading the counters and the clock allocates nothing).
func measure<P: Piece>(_ piece: inout P, _ plan: Plan) -> Result {
    for _ in 0..<plan.warmUp { piece.iterate() }
    var perRun: [Double] = []
    perRun.reserveCapacity(plan.runs)
    var allocations: UInt64 = 0
    var bytes: UInt64 = 0
    var frees: UInt64 = 0
    for _ in 0..<plan.runs {
        let before = allocation_counter_snapshot()
        let start = allocation_counter_now_ns()
        for _ in 0..<plan.iterations { piece.iterate() }
        let end = allocation_counter_now_ns()
        let after = allocation_counter_snapshot()
        perRun.append(Double(end - start) / Double(plan.iterations))
        allocations += after.allocations - before.allocations
        bytes += after.bytes - before.bytes
        frees += after.frees - before.frees
    }
    if let failure = piece.failure(afterIterations: plan.warmUp + plan.runs * plan.iterations) {
        fatalError("\(piece.name): \(failure)")
    }
    let measured = Double(plan.runs * plan.iterations)
    return Result(
        name: piece.name, nanosecondsPerRequest: median(perRun), allocationsPerRequest: Double(allocations) / measured,
        bytesPerRequest: Double(bytes) / measured, freesPerRequest: Double(frees) / measured)
}

/// The middle value (the mean of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Counts the allocations of `body` alone, for the per-step breakdown.
func countAllocations(of body: () -> Void) -> (allocations: UInt64, bytes: UInt64) {
    let before = allocation_counter_snapshot()
    body()
    let after = allocation_counter_snapshot()
    return (after.allocations - before.allocations, after.bytes - before.bytes)
}
