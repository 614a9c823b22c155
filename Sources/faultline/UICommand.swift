import FaultlineConfig
import FaultlineCore
import FaultlineServer

/// `faultline ui`: prints the address of the running proxy's web UI, with a one-time ticket.
enum UICommand {
    static let specs: [OptionSpec] = ControlCommand.connectionSpecs

    static let help = helpText(
        command: "ui", synopsis: "",
        summary: """
            Prints the address of the running proxy's web UI (flows, holds, rules, scenario state, marks and \
            lineages, live) on its control listener. The address carries a ticket that works once, within five \
            minutes: the browser trades it for a session cookie. Opens nothing by itself; run it again for a \
            new address.
            """,
        specs: specs)

    static func run(_ arguments: [String]) -> Int32 {
        ControlCommand.run(arguments, specs: specs, command: "ui", help: help, positionals: 0...0) { parsed in
            let client = try ControlCommand.client(parsed, command: "ui")
            let answer = try ControlCommand.call(client, "POST", "/v1/ui/tickets")
            guard let path = answer["path"]?.stringValue else {
                throw CommandFailure("the control API answered without a UI address")
            }
            print("http://\(client.address)\(path)")
            return 0
        }
    }
}
