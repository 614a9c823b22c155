#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The output: one JSON object per line, which Benchmarks/micro reads. The strings written are
/// names and messages without control characters, so quotes and backslashes are all `quoted`
/// escapes.
enum Report {
    static func selfCheck(_ outcome: SelfCheck.Outcome) {
        emit(
            "{\"self_check\":{\"array_allocations\":\(outcome.arrayAllocations),\"array_bytes\":\(outcome.arrayBytes),"
                + "\"arithmetic_allocations\":\(outcome.arithmeticAllocations),\"passed\":\(outcome.passed)}}")
    }

    static func result(_ result: Result) {
        emit(
            "{\"piece\":\(quoted(result.name)),\"ns\":\(result.nanosecondsPerRequest),"
                + "\"allocations\":\(result.allocationsPerRequest),\"bytes\":\(result.bytesPerRequest),"
                + "\"frees\":\(result.freesPerRequest)}")
    }

    static func step(_ name: String, allocations: Double, bytes: Double) {
        emit("{\"step\":\(quoted(name)),\"allocations\":\(allocations),\"bytes\":\(bytes)}")
    }

    static func traced(_ kinds: [String]) {
        emit("{\"trace_entries\":[\(kinds.map(quoted).joined(separator: ","))]}")
    }

    /// Reports what stops the run (a wrong argument, a failed self-check) and exits with 1: not a
    /// crash, so no backtrace hides the message.
    static func fail(_ message: String) -> Never {
        emit("{\"error\":\(quoted(message))}")
        var text = "faultline-microbench: \(message)\n"
        // write(2) on descriptor 2: Glibc's `stderr` is a global Swift 6 will not share.
        _ = text.withUTF8 { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }

    private static func emit(_ line: String) { print(line) }

    private static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
