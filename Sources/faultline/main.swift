import FaultlineCore
import FaultlinePosix
import Foundation

// Signals must be blocked before any thread starts, so that only the main thread's sigwait
// receives SIGINT/SIGTERM and the trace can be closed cleanly.
TerminationSignals.block()
ResourceLimits.raiseOpenFileLimit()

let usage = """
    usage: faultline <command> [options]

    Faultline is an HTTP fault-injecting proxy that writes an event trace of every exchange.

    commands:
      run        run the proxy (faultline run --help)
      rules      check a rules folder: faultline rules check DIR
      check      check a trace against the session-boundary contract (faultline check --help)
      help       show this help, or a command's: faultline help run

    options:
      --version  print the version
      --help     show this help
    """

func main(_ arguments: [String]) -> Int32 {
    let commands: [String: ([String]) -> Int32] = ["run": RunCommand.run, "rules": RulesCommand.run, "check": CheckCommand.run]
    guard let first = arguments.first else {
        print(usage)
        return 0
    }
    switch first {
    case "--version", "version":
        print("faultline \(FaultlineVersion.string)")
        return 0
    case "--help", "-h", "help":
        if let command = arguments.dropFirst().first, let run = commands[command] {
            return run(["--help"])
        }
        print(usage)
        return 0
    default:
        if let run = commands[first] { return run(Array(arguments.dropFirst())) }
        var message = "faultline: unknown command '\(first)'"
        if let suggestion = EditDistance.nearest(to: first, in: commands.keys) { message += " (did you mean '\(suggestion)'?)" }
        printError(message + "; see 'faultline --help'")
        return 2
    }
}

exit(main(Array(CommandLine.arguments.dropFirst())))
