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
      demo       run the reference clients through the refresh and logout races and check them
      explore    run a client under many delivery orders and find the one that breaks the contract
                 (faultline explore --help)
      run        run the proxy (faultline run --help)
      check      check a trace against the session-boundary contract (faultline check --help)
      rules      check a rules folder (rules check DIR), switch a running proxy's rules
                 (rules enable|disable SCENARIO[/RULE], rules list, rules reload), or write the
                 holds that stage a capture's order (rules from-capture CAPTURE -o FILE)
      holds      list the flows a running proxy holds, or wait for one (holds wait NAME)
      release    release a held flow, or answer it (release NAME [--status CODE])
      fail       reset the client of a held flow (fail NAME)
      mark       write a mark to the trace and fire mark:LABEL (mark LABEL [KEY=VALUE]...)
      state      show, set or reset scenario states (state, state set, state reset)
      ui         print the address of a running proxy's web UI (flows, holds, rules), with a one-time ticket
      replay     answer clients from a capture (replay serve), or send its requests again (replay client)
      har        export a trace or capture as HAR 1.2, or import a HAR file as a capture (har export|import)
      backend    run the reference auth backend for demos and tests (faultline backend --help)
      ca         show or export the CA that clients trust for interception (ca path|export|info|simulator)
      help       show this help, or a command's: faultline help run

    The commands that talk to a running proxy find it through its control file
    ($FAULTLINE_HOME/control.json or ~/.faultline/control.json), or --control URL --token TOKEN.

    options:
      --version  print the version
      --help     show this help
    """

func main(_ arguments: [String]) -> Int32 {
    let commands: [String: ([String]) -> Int32] = [
        "run": RunCommand.run, "rules": RulesCommand.run, "holds": HoldsCommand.run, "release": ReleaseCommand.release,
        "fail": ReleaseCommand.fail, "mark": MarkCommand.run, "state": StateCommand.run, "backend": BackendCommand.run,
        "check": CheckCommand.run, "demo": DemoCommand.run, "ca": CACommand.run, "replay": ReplayCommand.run,
        "har": HARCommand.run, "ui": UICommand.run, "explore": ExploreCommand.run,
    ]
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
        if let suggestion = EditDistance.nearest(to: first, in: commands.keys) {
            message += " (did you mean '\(suggestion)'?)"
        }
        printError(message + "; see 'faultline --help'")
        return 2
    }
}

exit(main(Array(CommandLine.arguments.dropFirst())))
