/// The command line: `--iterations N` (per run) and `--runs R`.
struct Options {
    var iterations = 20_000
    var runs = 7

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--iterations": options.iterations = positive(rest.popFirst(), for: argument)
            case "--runs": options.runs = positive(rest.popFirst(), for: argument)
            default:
                Report.fail("unknown argument '\(argument)'; usage: faultline-microbench [--iterations N] [--runs R]")
            }
        }
        return options
    }

    private static func positive(_ text: String?, for option: String) -> Int {
        guard let text, let value = Int(text), value > 0 else { Report.fail("\(option) takes a positive integer") }
        return value
    }
}
