import FaultlineConfig
import FaultlineCore

/// `faultline mark LABEL [KEY=VALUE]...`: posts a mark to a running proxy.
enum MarkCommand {
    static let specs: [OptionSpec] = ControlCommand.connectionSpecs

    static let help = helpText(
        command: "mark", synopsis: "LABEL [KEY=VALUE]...",
        summary: """
            Writes a 'mark' event with LABEL and the given attributes to the running proxy's trace, and \
            fires 'mark:LABEL' for rules ('after'/'before' conditions, holds with release: { on: "mark:LABEL" }).
            """,
        specs: specs)

    static func run(_ arguments: [String]) -> Int32 {
        ControlCommand.run(arguments, specs: specs, command: "mark", help: help, positionals: 1...Int.max) { parsed in
            let label = parsed.positionals[0]
            var attributes: [JSONMember] = []
            for pair in parsed.positionals.dropFirst() {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw UsageError(description: "faultline mark: attributes are KEY=VALUE, not '\(pair)'")
                }
                let key = String(pair[..<equals])
                guard !attributes.contains(where: { $0.key == key }) else {
                    throw UsageError(description: "faultline mark: attribute '\(key)' given twice")
                }
                attributes.append(JSONMember(key: key, value: .string(String(pair[pair.index(after: equals)...]))))
            }
            let client = try ControlCommand.client(parsed, command: "mark")
            _ = try ControlCommand.call(
                client, "POST", "/v1/marks",
                body: .object([
                    JSONMember(key: "label", value: .string(label)),
                    JSONMember(key: "attributes", value: .object(attributes)),
                ]))
            print("marked '\(label)'")
            return 0
        }
    }
}
