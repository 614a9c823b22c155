import FaultlineCore
import FaultlinePosix

/// An option a command accepts.
struct OptionSpec {
    let name: String
    /// Placeholder for the value (`ADDR`), or nil for a flag.
    let value: String?
    let help: String

    /// `--help`, which the commands take and the parser itself knows (it reads `-h` as this).
    static let helpOption = OptionSpec(name: "--help", value: nil, help: "show this help")

    /// Reads an option table written the way the help prints it, one option a line:
    /// `--name VALUE  what it does`, or `--name  what it does` for a flag. Two or more spaces end
    /// the option and its placeholder (which may hold single spaces, as `'NAME: VALUE'` does).
    ///
    /// The tables are the commands' own constants, so a line that does not fit is a mistake in
    /// this program, not in anything a user typed: it stops the program, naming the line.
    static func table(_ text: String) -> [OptionSpec] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let gap = line.firstRange(of: "  ") else { malformed(line, "no two spaces before the help") }
            let label = line[..<gap.lowerBound].split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            let help = line[gap.upperBound...].drop { $0 == " " }
            guard let name = label.first, name.hasPrefix("-"), !name.contains("=") else {
                malformed(line, "it does not start with an option name (-X or --NAME, no =)")
            }
            guard !help.isEmpty else { malformed(line, "no help after the option") }
            return OptionSpec(name: String(name), value: label.count > 1 ? String(label[1]) : nil, help: String(help))
        }
    }

    private static func malformed(_ line: Substring, _ problem: String) -> Never {
        preconditionFailure("malformed option table line '\(line)': \(problem); expected '--name [VALUE]  help'")
    }
}

/// A command line that does not fit the command's options, with the sentence to print.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// The options and positional arguments of one command, in the order given.
struct ParsedArguments {
    private(set) var options: [(name: String, value: String?)] = []
    private(set) var positionals: [String] = []

    /// Every value given for `name`, in order.
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.compactMap(\.value) }
    /// The last value given for `name`.
    func value(_ name: String) -> String? { values(name).last }

    /// The whole number given for `name`, or `value` when it was not given; one outside `range`
    /// is refused with `faultline COMMAND: NAME takes UNIT from LOW to HIGH, not 'TEXT'`.
    func integer(
        _ name: String, default value: Int, in range: ClosedRange<Int>, command: String, unit: String = "a whole number"
    ) throws(UsageError) -> Int {
        guard let text = self.value(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                description:
                    "faultline \(command): \(name) takes \(unit) from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            )
        }
        return number
    }

    /// The time given for `name` in seconds (fractions allowed), above 0 and under a day; nil when
    /// it was not given. Anything else is refused with `faultline COMMAND: NAME takes a number of
    /// seconds, not 'TEXT'`.
    func seconds(_ name: String, command: String) throws(UsageError) -> Duration? {
        guard let text = value(name) else { return nil }
        guard let seconds = Double(text), seconds > 0, seconds < 86_400 else {
            throw UsageError(description: "faultline \(command): \(name) takes a number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// Puts an option first, as if the user had typed it before the others (a default that the
    /// options after it, a `--mode`, apply to).
    mutating func prepend(_ option: (name: String, value: String?)) { options.insert(option, at: 0) }
    func has(_ name: String) -> Bool { options.contains { $0.name == name } }

    /// Parses `--name value`, `--name=value` and flags against `specs`; unknown options are errors
    /// that suggest the nearest known one.
    static func parse(_ arguments: [String], specs: [OptionSpec], command: String) throws(UsageError) -> ParsedArguments
    {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if name == "-h" { name = "--help" }
            guard let spec = specs.first(where: { $0.name == name }) else {
                var message = "faultline \(command): unknown option '\(name)'"
                if let suggestion = EditDistance.nearest(to: name, in: specs.map(\.name)) {
                    message += " (did you mean '\(suggestion)'?)"
                }
                throw UsageError(description: message + "; see 'faultline \(command) --help'")
            }
            if let placeholder = spec.value {
                if let inlineValue {
                    parsed.options.append((name, inlineValue))
                } else if index < arguments.count {
                    parsed.options.append((name, arguments[index]))
                    index += 1
                } else {
                    throw UsageError(
                        description: "faultline \(command): \(name) needs a value (\(name) \(placeholder))")
                }
            } else {
                if inlineValue != nil {
                    throw UsageError(description: "faultline \(command): \(name) takes no value")
                }
                parsed.options.append((name, nil))
            }
        }
        return parsed
    }
}

/// The start every command shares: the options parsed, `--help` answered, stray arguments refused.
extension ParsedArguments {
    /// Parses `arguments`; for `--help` prints `help` and returns nil, for which the command exits 0.
    static func parse(
        _ arguments: [String], specs: [OptionSpec], command: String, help: String
    ) throws(UsageError) -> ParsedArguments? {
        let parsed = try parse(arguments, specs: specs, command: command)
        if parsed.has("--help") {
            print(help)
            return nil
        }
        return parsed
    }

    /// Runs a command whose only usage errors are its options': a parse failure is printed and
    /// exits 2, `--help` exits 0, anything else is `body`'s to answer.
    static func run(
        _ arguments: [String], specs: [OptionSpec], command: String, help: String,
        _ body: (ParsedArguments) -> Int32
    ) -> Int32 {
        let parsed: ParsedArguments
        do {
            guard let given = try parse(arguments, specs: specs, command: command, help: help) else { return 0 }
            parsed = given
        } catch {
            printError("\(error)")
            return 2
        }
        return body(parsed)
    }

    /// Refuses positional arguments after the first `allowed`: `faultline COMMAND: unexpected
    /// argument 'X'; see 'faultline COMMAND --help'`.
    func refuseExtraPositionals(beyond allowed: Int = 0, command: String) throws(UsageError) {
        guard positionals.count > allowed else { return }
        let extra = positionals[allowed]
        throw UsageError(
            description: "faultline \(command): unexpected argument '\(extra)'; see 'faultline \(command) --help'")
    }
}

/// An address option's value: `HOST:PORT`, `[V6]:PORT` or a bare port (on 127.0.0.1);
/// `localhost` means 127.0.0.1. The error names the option and says what is wrong (a port out of
/// range, a host that is no IP literal) before the expected form.
func listenAddress(_ text: String, option: String, command: String, examplePort: Int) throws(UsageError)
    -> SocketAddress
{
    var spelled = text
    if Int(text) != nil { spelled = "127.0.0.1:\(text)" }
    if spelled.hasPrefix("localhost:") { spelled = "127.0.0.1:" + spelled.dropFirst("localhost:".count) }
    do {
        return try SocketAddress(parsing: spelled)
    } catch {
        let reason = (error as? SocketAddressError)?.reason ?? "\(error)"
        throw UsageError(
            description: "faultline \(command): \(option) '\(text)': \(reason); expected IP:PORT such as "
                + "127.0.0.1:\(examplePort) or [::1]:\(examplePort)")
    }
}

/// Formats a command's help text from its synopsis and options.
func helpText(command: String, synopsis: String, summary: String, specs: [OptionSpec]) -> String {
    var lines = ["usage: faultline \(command) \(synopsis)", "", summary, "", "options:"]
    // `--help` is accepted by every command; a reader of the help has already found it.
    let listed = specs.filter { $0.name != "--help" }
    if !listed.isEmpty { lines.append(optionLines(listed)) }
    return lines.joined(separator: "\n")
}

/// The options of a help, one a line: `  --name VALUE  what it does`, the descriptions in one column.
func optionLines(_ specs: [OptionSpec]) -> String {
    let labels = specs.map { spec in spec.value.map { "\(spec.name) \($0)" } ?? spec.name }
    let width = (labels.map(\.count).max() ?? 0) + 2
    return zip(labels, specs).map { label, spec in
        "  " + label + String(repeating: " ", count: width - label.count) + spec.help
    }.joined(separator: "\n")
}
