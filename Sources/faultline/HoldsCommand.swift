import FaultlineConfig
import FaultlineCore
import FaultlineServer

/// `faultline holds [--json]` and `faultline holds wait NAME [--timeout S]`: the flows a running
/// proxy holds.
enum HoldsCommand {
    static let specs: [OptionSpec] =
        [ControlCommand.jsonTableSpec]
        + OptionSpec.table("--timeout SECONDS  with wait: give up after this long (default 10, max 300)")
        + ControlCommand.connectionSpecs

    static let help = helpText(
        command: "holds", synopsis: "[--json] | holds wait NAME [--timeout SECONDS] [--json]",
        summary: """
            Lists the flows the running proxy holds (oldest first), or with 'wait' waits until a flow \
            is held under NAME and prints it (exit 1 if none is within the timeout). Release them with \
            'faultline release NAME' or 'faultline fail NAME'.
            """,
        specs: specs)

    static func run(_ arguments: [String]) -> Int32 {
        ControlCommand.run(arguments, specs: specs, command: "holds", help: help, positionals: 0...2) { parsed in
            let positionals = parsed.positionals
            if positionals.isEmpty {
                if parsed.has("--timeout") {
                    throw UsageError(description: "faultline holds: --timeout goes with 'holds wait NAME'")
                }
                return try list(parsed)
            }
            guard positionals[0] == "wait", positionals.count == 2 else {
                throw UsageError(
                    description: "faultline holds: expected 'faultline holds' or 'faultline holds wait NAME'")
            }
            return try wait(for: positionals[1], parsed)
        }
    }

    private static func list(_ parsed: ParsedArguments) throws -> Int32 {
        let client = try ControlCommand.client(parsed, command: "holds")
        let holds = try ControlCommand.call(client, "GET", "/v1/holds")
        if parsed.has("--json") {
            ControlCommand.printJSON(holds)
        } else if holds.list.isEmpty {
            print("no flows are held")
        } else {
            print(tableText([["ID", "NAME", "PHASE", "HELD", "FLOW", "RELEASE ON"]] + holds.list.map(row)))
        }
        return 0
    }

    private static func wait(for name: String, _ parsed: ParsedArguments) throws -> Int32 {
        var seconds = 10.0
        if let text = parsed.value("--timeout") {
            guard let value = Double(text), value >= 0, value <= 300 else {
                throw UsageError(description: "faultline holds: --timeout takes seconds from 0 to 300, not '\(text)'")
            }
            seconds = value
        }
        let client = try ControlCommand.client(parsed, command: "holds")
        let hold = try ControlCommand.call(
            client, "GET", "/v1/holds/\(ControlClient.pathSegment(name))/wait?timeout=\(seconds)",
            wait: .seconds(fractional: seconds))
        if parsed.has("--json") {
            ControlCommand.printJSON(hold)
        } else {
            print(tableText([row(hold)]))
        }
        return 0
    }

    /// `#3  gate  request  1.2s  GET http://...  mark:go`
    static func row(_ hold: JSONValue) -> [String] {
        let milliseconds = hold["held_ms"]?.integer ?? 0
        let held = milliseconds < 10_000 ? "\(Double(milliseconds / 100) / 10)s" : "\(milliseconds / 1000)s"
        return [
            "#\(hold["id"]?.integer ?? 0)", hold["name"]?.stringValue ?? "", hold["phase"]?.stringValue ?? "", held,
            hold["summary"]?.stringValue ?? "", hold["release_on"]?.stringValue ?? "-",
        ]
    }
}
