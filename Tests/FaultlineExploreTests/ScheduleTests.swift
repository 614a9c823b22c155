import Testing

@testable import FaultlineExplore

@Suite struct ScheduleTests {
    @Test(arguments: ["pct3:42:0.0.w.1", "random:7:", "exhaustive:0:2.1.0", "fcfs:0:", "pct12:18446744073709551615:w"])
    func aScheduleReadsBackAsWritten(_ text: String) throws {
        let schedule = try Schedule(parsing: text)
        #expect(schedule.description == text)
    }

    @Test func choicesAndDeviations() throws {
        let schedule = try Schedule(parsing: "pct3:42:0.0.w.1")
        #expect(schedule.strategy == .pct(depth: 3))
        #expect(schedule.seed == 42)
        #expect(schedule.choices == [.step(0), .step(0), .wait, .step(1)])
        #expect(schedule.deviations == 2)
    }

    /// A bad `--schedule` names the column of the mistake and what was expected.
    @Test(arguments: [
        ("pcx3:1:0", 1, "unknown strategy 'pcx3'; expected random, pctN (pct3), exhaustive or fcfs"),
        ("random", 7, "expected ':' after the strategy"),
        ("random:x1:0", 8, "the seed must be a whole number, found 'x1'"),
        ("random:1", 9, "expected ':' after the seed"),
        ("random:1:0.2.q.1", 14, "choice 3 must be a step index (0, 1, …) or w, found 'q'"),
        ("random:1:0..1", 12, "choice 2 must be a step index (0, 1, …) or w, found ''"),
        ("random:1:-1", 10, "choice 1 must be a step index (0, 1, …) or w, found '-1'"),
    ])
    func aBadScheduleNamesItsColumn(_ text: String, _ column: Int, _ message: String) {
        #expect(throws: ScheduleSyntaxError(column: column, message: message, text: text)) {
            try Schedule(parsing: text)
        }
    }

    @Test func theErrorReadsAsASentence() {
        let error = ScheduleSyntaxError(
            column: 8, message: "the seed must be a whole number, found 'x1'", text: "random:x1:0")
        #expect(error.description == "schedule 'random:x1:0': column 8: the seed must be a whole number, found 'x1'")
    }
}
