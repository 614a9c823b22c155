import FaultlineConfig
import FaultlineCore
import FaultlineServer
import Foundation

/// What the commands that talk to a running proxy share: finding its control API, making a call,
/// turning failures into exit statuses (1 for API and connection errors, 2 for usage errors).
enum ControlCommand {
    /// Options every control command takes.
    static let connectionSpecs: [OptionSpec] =
        OptionSpec.table(
            """
            --control-file PATH  the running proxy's control file (default $FAULTLINE_HOME/control.json or ~/.faultline/control.json)
            --control URL        talk to the control API at URL instead (needs --token)
            --token TOKEN        the control token, with --control
            """) + [.helpOption]

    /// `--json` for the commands whose output is the API's answer as it stands.
    static let jsonSpec = OptionSpec(name: "--json", value: nil, help: "print the API's JSON")

    /// `--json` for the commands that otherwise print the answer as a table.
    static let jsonTableSpec = OptionSpec(name: "--json", value: nil, help: "print the API's JSON instead of a table")

    /// Runs a command body, printing its failure: `UsageError` exits 2, anything else 1.
    static func run(_ command: String, _ body: () throws -> Int32) -> Int32 {
        do {
            return try body()
        } catch let usage as UsageError {
            printError(usage.description)
            return 2
        } catch {
            printError("faultline \(command): \(error)")
            return 1
        }
    }

    /// The client for the proxy the options point at: `--control URL --token T`, else the control
    /// file. Throws `CommandFailure` when no running proxy can be found.
    static func client(_ parsed: ParsedArguments, command: String) throws -> ControlClient {
        if let url = parsed.value("--control") {
            guard let token = parsed.value("--token") else {
                throw UsageError(
                    description: "faultline \(command): --control needs --token (the proxy's control token)")
            }
            do {
                return try ControlClient(url: url, token: token)
            } catch {
                throw UsageError(description: "faultline \(command): --control: \(error)")
            }
        }
        if parsed.has("--token") {
            throw UsageError(description: "faultline \(command): --token goes with --control URL")
        }
        let file = ControlFile(path: parsed.value("--control-file") ?? ControlFile.defaultPath())
        guard let contents = try file.read() else {
            throw CommandFailure("no running faultline found (looked for \(file.displayPath))")
        }
        guard ControlFile.isRunning(contents.pid) else {
            throw CommandFailure(
                "no running faultline found (\(file.displayPath) names process \(contents.pid), which is gone; "
                    + "the proxy did not stop cleanly)")
        }
        return try ControlClient(url: contents.url, token: contents.token)
    }

    /// Makes a call and returns its JSON; a non-2xx answer throws the API's message, no answer
    /// throws the connection problem.
    static func call(
        _ client: ControlClient, _ method: String, _ path: String, body: JSONValue? = nil, wait: Duration = .zero
    ) throws -> JSONValue {
        let response: ControlResponse
        do {
            response = try client.call(method, path, body: body, wait: wait)
        } catch {
            if error.connectionRefused {
                throw CommandFailure("no running faultline found (nothing listens at \(client.address))")
            }
            throw CommandFailure(error.description)
        }
        guard response.succeeded else { throw CommandFailure(response.errorMessage) }
        guard let json = response.json else {
            throw CommandFailure("the control API answered something that is not JSON")
        }
        return json
    }

    /// Runs a control command (see ``run(_:_:)``) after the usual preamble: parse, answer
    /// `--help` (exit 0), check the positional count.
    static func run(
        _ arguments: [String], specs: [OptionSpec], command: String, help: String, positionals: ClosedRange<Int>,
        _ body: (ParsedArguments) throws -> Int32
    ) -> Int32 {
        run(command) {
            guard let parsed = try ParsedArguments.parse(arguments, specs: specs, command: command, help: help) else {
                return 0
            }
            guard positionals.contains(parsed.positionals.count) else {
                throw UsageError(
                    description: "faultline \(command): wrong arguments; see 'faultline \(command) --help'")
            }
            return try body(parsed)
        }
    }

    /// Prints `value` as indented JSON.
    static func printJSON(_ value: JSONValue) {
        print(value.jsonText(pretty: true))
    }
}

/// Small readers for the API's JSON answers that FaultlineCore's `JSONValue` does not have (its
/// member subscript, `stringValue` and `boolValue` serve the rest).
extension JSONValue {
    var integer: Int? {
        if case .number(let value) = self { return Int(exactly: value.double) }
        return nil
    }

    var list: [JSONValue] {
        if case .array(let elements) = self { return elements }
        return []
    }
}

/// Lays out rows in columns separated by two spaces (the last column is not padded).
func tableText(_ rows: [[String]]) -> String {
    guard let columns = rows.map(\.count).max() else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows {
        for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
