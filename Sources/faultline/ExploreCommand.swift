import FaultlineCapture
import FaultlineConfig
import FaultlineContract
import FaultlineCore
import FaultlineExplore
import FaultlineExplorer
import FaultlinePosix
import FaultlineReplay
import FaultlineRules
import FaultlineServer
import FaultlineTrace
import Foundation
import Synchronization

/// `faultline explore [options] -- CLIENT COMMAND…`: runs the client once per schedule with the
/// proxy in exploration mode, checks each run against the contract, shrinks what fails, reports.
enum ExploreCommand {
    static let ownSpecs: [OptionSpec] = OptionSpec.table(
        """
        --schedules N             schedules to run (default 100)
        --strategy NAME           pct (default: probabilistic concurrency testing), random, or exhaustive (depth-first, up to --max-steps)
        --depth D                 with pct, the bug depth it aims at: D-1 priority change points (default 3)
        --seed X                  the seed every schedule's own seed derives from (default 1)
        --schedule STRING         replay this schedule (as a report prints it) instead of exploring
        --settle MS               quiet needed before each decision, in ms (default 25)
        --max-wait MS             the longest a decision waits for the client's next request, in ms (default 1000)
        --step-timeout SECONDS    the longest a step stays held; then it goes and the run is diverged (default 5)
        --max-steps N             with exhaustive, decisions explored per run; later ones go in arrival order (default 64)
        --select MATCH            which flows are scheduled, as a rule file's match in JSON5 (default: every flow), e.g. '{ role: "refresh" }'
        --before-each CMD         a shell command run before every schedule (reset the backend's state)
        --client-timeout SECONDS  kill the client after this long (default 60)
        --contract FILE           a contract file (default: the built-in default contract)
        --fail-on-client-error    a client that exits non-zero or times out fails the exploration too
        --shrink-runs N           runs allowed to shrink each clause's first failing schedule (default 40)
        --shard K/N               run only the K-th of N slices of the schedules (merge the JSON reports with 'explore merge')
        --replay CAPTURE          answer from a capture (as 'replay serve' does) instead of a live upstream
        --keep DIR                where failing runs' traces and HTML timelines go (default: a new folder under the temp dir)
        --format FORMAT           the report: text (default), json, junit or html
        --output FILE             write the report to FILE instead of standard output
        """)

    /// `faultline run`'s options that make sense per schedule (no trace file, capture or control API).
    static let runSpecs = RunCommand.specs.filter {
        ![
            "--trace", "--capture", "--capture-body-limit", "--capture-secrets", "--control", "--control-token",
            "--control-file", "--shutdown-grace",
        ].contains($0.name)
    }.map { spec in
        spec.name == "--loops"
            ? OptionSpec(
                name: spec.name, value: spec.value,
                help:
                    "event-loop threads (default 1: requests that arrive together are then read in the order they came, so a replayed schedule meets the same pending steps)"
            )
            : spec
    }

    static var allSpecs: [OptionSpec] { ownSpecs + runSpecs + ReplayServeCommand.specs + CAOptions.specs }

    static let help = helpText(
        command: "explore",
        synopsis: "[options] -- CLIENT COMMAND…   |   explore merge REPORT.json… [--format F] [--output FILE]",
        summary: """
            Finds the races nobody wrote a rule for. The client command runs once per schedule, through a proxy \
            in which nothing of a selected flow moves on its own: each request waiting to go upstream and each \
            response head waiting for its client is a pending step, and when the system has been quiet for \
            --settle ms the strategy lets one go, or waits for the client's next request (up to --max-wait). \
            Each run's trace is checked against the contract; for each clause broken, the first failing \
            schedule is shrunk to the fewest deviations from arrival order that still break it, and the report \
            prints the command that replays it (--schedule). The client gets http_proxy, https_proxy, \
            HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and FAULTLINE_PROXY, and with TLS interception SSL_CERT_FILE, \
            REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE and NODE_EXTRA_CA_CERTS naming a bundle with the Faultline CA.
            Exit status: 0 when no schedule broke the contract, 1 when one did, 2 when the exploration could not \
            run. Ctrl-C stops after the current schedule and still writes the report.
            Examples:
              faultline explore --rules Rules --schedules 200 -- python3 client.py
              faultline explore --strategy random --seed 7 --before-each 'curl -s -X POST http://127.0.0.1:9000/_backend/reset' -- ./app-tests
              faultline explore --schedule 'pct3:4417:0.0.w.1' --rules Rules -- python3 client.py
              faultline explore --shard 2/4 --format json --output shard-2.json -- python3 client.py
              faultline explore merge shard-*.json --format junit --output explore.xml
            """,
        specs: allSpecs)

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.first == "merge" { return merge(Array(arguments.dropFirst())) }
        let split = arguments.firstIndex(of: "--")
        let optionArguments = split.map { Array(arguments[..<$0]) } ?? arguments
        let client = split.map { Array(arguments[arguments.index(after: $0)...]) } ?? []
        let setup: Setup
        do {
            guard
                let parsed = try ParsedArguments.parse(
                    optionArguments, specs: allSpecs, command: "explore", help: help)
            else { return 0 }
            if let stray = parsed.positionals.first {
                throw UsageError(
                    description: "faultline explore: unexpected argument '\(stray)'; the client command goes after --")
            }
            guard !client.isEmpty else {
                throw UsageError(
                    description:
                        "faultline explore: no client command; give it after --, e.g. faultline explore -- python3 client.py"
                )
            }
            setup = try Setup(parsed, client: client)
        } catch let failure as CommandFailure {
            printError("faultline explore: \(failure)")
            return 2
        } catch {
            printError("\(error)")
            return 2
        }
        defer { setup.removeTemporaryFolders() }
        // As `replay serve` prints them: once, though each schedule makes its own source.
        if let replay = setup.replay {
            for line in ReplaySource.loadWarnings(for: replay.capture) { printError(line) }
        }
        let stop = Atomic<Bool>(false)
        Thread.detachNewThread {
            let signal = TerminationSignals.wait()
            printError("\nfaultline explore: \(TerminationSignals.name(signal)): stopping after this schedule")
            stop.store(true, ordering: .sequentiallyConsistent)
        }
        let progress = ProgressPrinter(
            total: setup.options.shard.map { shard in
                (0..<setup.options.schedules).filter(shard.contains).count
            } ?? setup.options.schedules)
        let explorer = Explorer(options: setup.options, contract: setup.contract) { strategy in
            try setup.runOnce(strategy)
        }
        let finished = Mutex<ExploreReport?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let report = await explorer.explore(
                progress: { progress.show($0) }, shouldStop: { stop.load(ordering: .sequentiallyConsistent) })
            finished.withLock { $0 = report }
            done.signal()
        }
        done.wait()
        progress.finish()
        guard let report = finished.withLock({ $0 }) else { return 2 }
        return write(report, format: setup.format, output: setup.output)
    }

    /// Prints the report as asked; returns the exploration's exit status (2 when it cannot be written).
    static func write(_ report: ExploreReport, format: String, output: String?) -> Int32 {
        let text: String
        switch format {
        case "json": text = ExploreReportFormatter.json(report)
        case "junit": text = ExploreReportFormatter.junit(report)
        case "html": text = ExploreReportFormatter.html(report)
        default: text = ExploreReportFormatter.text(report)
        }
        if let output {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                printError("faultline explore: cannot write \(output): \(error.localizedDescription)")
                return 2
            }
            printError("faultline explore: " + ExploreReportFormatter.verdict(report) + "; report in \(output)")
        } else {
            print(text, terminator: "")
        }
        return report.exitStatus
    }

    static let formats = ["text", "json", "junit", "html"]

    /// `faultline explore merge REPORT.json…`: the shards' JSON reports as one report.
    static func merge(_ arguments: [String]) -> Int32 {
        let specs =
            ownSpecs.filter { ["--format", "--output"].contains($0.name) } + [
                OptionSpec.helpOption
            ]
        do {
            let parsed = try ParsedArguments.parse(arguments, specs: specs, command: "explore merge")
            if parsed.has("--help") {
                print(
                    "usage: faultline explore merge REPORT.json… [--format text|json|junit|html] [--output FILE]\n\nJoins the JSON reports of the shards of one exploration (--shard K/N) into one report."
                )
                return 0
            }
            guard !parsed.positionals.isEmpty else {
                throw UsageError(description: "faultline explore merge: give the shards' JSON reports (--format json)")
            }
            let format = try formatOption(parsed)
            var reports: [ExploreReport] = []
            for path in parsed.positionals {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CommandFailure("cannot read \(path)")
                }
                do {
                    reports.append(try ExploreReportFormatter.decode(data))
                } catch {
                    throw CommandFailure(
                        "\(path) is not an explore report in JSON (faultline explore --format json): \(error)")
                }
            }
            return write(try ExploreReport.merged(reports), format: format, output: parsed.value("--output"))
        } catch {
            printError("\(error)")
            return 2
        }
    }

    static func formatOption(_ parsed: ParsedArguments) throws(UsageError) -> String {
        let format = parsed.value("--format") ?? "text"
        guard formats.contains(format) else {
            throw UsageError(
                description: "faultline explore: --format takes \(formats.joined(separator: ", ")), not '\(format)'")
        }
        return format
    }
}
