/// `faultline replay serve|client`: answer clients from a capture, or send a capture's requests
/// to a server again.
enum ReplayCommand {
    static let help = """
        usage: faultline replay serve CAPTURE [--listen ADDR] [--rules DIR] [--trace FILE] [options]
               faultline replay client CAPTURE --target URL [--speed N] [--allow N] [options]

        serve    answers requests from the capture instead of any upstream (faultline replay serve --help)
        client   sends the capture's requests to a server again and compares the answers
                 (faultline replay client --help)
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h" else {
            print(help)
            return arguments.isEmpty ? 2 : 0
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "serve": return ReplayServeCommand.run(rest)
        case "client": return ReplayClientCommand.run(rest)
        default:
            printError("faultline replay: expected 'serve' or 'client', not '\(first)'; see 'faultline replay --help'")
            return 2
        }
    }
}
