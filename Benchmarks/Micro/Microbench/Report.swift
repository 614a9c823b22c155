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

    static func fail(_ message: String) -> Never {
        emit("{\"error\":\(quoted(message))}")
        fatalError(message)
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
