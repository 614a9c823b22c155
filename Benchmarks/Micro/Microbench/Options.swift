/// The command line: `--iterations N` (per run), `--runs R`, `--only PIECE` to measure one piece
/// (with its breakdown), `--uncounted` to go on when the self-check fails: under
/// `valgrind --tool=dhat`, whose allocator takes the place of this one, so dhat counts instead;
/// `--no-breakdown` to run the pieces only (under callgrind, so that the instructions counted are
/// the pieces' iterations and nothing else: `Benchmarks/micro --instructions`).
struct Options {
    var iterations = 20_000
    var runs = 7
    var only: String?
    var uncounted = false
    var breakdown = true

    static let usage =
        "usage: faultline-microbench [--iterations N] [--runs R] [--only PIECE] [--uncounted] [--no-breakdown]"

    /// Whether the piece named `name` is measured.
    func wants(_ name: String) -> Bool { only == nil || only == name }

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--iterations": options.iterations = positive(rest.popFirst(), for: argument)
            case "--runs": options.runs = positive(rest.popFirst(), for: argument)
            case "--uncounted": options.uncounted = true
            case "--no-breakdown": options.breakdown = false
            case "--only":
                guard let name = rest.popFirst() else { Report.fail("--only takes a piece's name; \(usage)") }
                options.only = name
            default:
                Report.fail("unknown argument '\(argument)'; \(usage)")
            }
        }
        return options
    }

    private static func positive(_ text: String?, for option: String) -> Int {
        guard let text, let value = Int(text), value > 0 else { Report.fail("\(option) takes a positive integer") }
        return value
    }
}
