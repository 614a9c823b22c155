import FaultlineContract
import FaultlineDemo
import FaultlineExplorer
import Foundation
import Synchronization

/// `faultline demo`: the reference backend and a proxy in this process, the correct reference
/// client and broken ones through the token-refresh and logout races, and the contract verdicts.
enum DemoCommand {
    static let specs: [OptionSpec] =
        OptionSpec.table(
            """
            --all            run every client variant through its race (the whole mutation table)
            --keep           keep the traces in a new folder under the system temp dir and say where
            --traces DIR     write the traces to DIR (implies --keep)
            --http2          the client speaks HTTP/2 (h2c, one connection, each request a stream) instead of HTTP/1.1
            --explore        no ordering rules: explore the delivery orders (faultline explore) until each broken client is caught
            --schedules N    with --explore, schedules per case (default 50; a broken client stops at the first that catches it)
            --strategy NAME  with --explore, pct (default) or random
            --seed X         with --explore, the seed (default 1)
            --settle MS      with --explore, the quiet needed before each decision (default 25)
            --max-wait MS    with --explore, the longest wait for the client's next request in the races whose client logs out on a timer (default 100; the others never wait)
            """) + [.helpOption]

    static let help = helpText(
        command: "demo",
        synopsis:
            "[--all] [--http2] [--keep | --traces DIR] [--explore [--schedules N] [--strategy S] [--seed X] [--settle MS] [--max-wait MS]]",
        summary: """
            Starts the reference auth backend and a Faultline proxy in this process, drives a correct \
            client and broken ones through the races of the token-refresh and logout articles (three \
            concurrent 401s, a late 401, a logout while a 401 is on its way), and checks each trace \
            against the session-boundary contract. Nothing else needs to run; it takes a few seconds. \
            The client speaks HTTP/1.1, a connection per request; with --http2 it speaks HTTP/2 with \
            prior knowledge over one connection, so the concurrent requests of a race are concurrent \
            streams, and the same clauses catch the same clients. The traces stay in memory unless \
            --keep or --traces asks for them on disk.
            With --explore the races run with the auth profile and no rule that holds or orders \
            anything (a forced status stays): the exploration scheduler picks the delivery orders, each \
            broken client is explored until a schedule breaks the contract (then shrunk), and the \
            correct client through every schedule; it prints the clause found and the schedules it took.
            """,
        specs: specs)

    static func run(_ arguments: [String]) -> Int32 {
        ParsedArguments.run(arguments, specs: specs, command: "demo", help: help, demo)
    }

    /// `faultline demo` with its options parsed.
    static func demo(_ parsed: ParsedArguments) -> Int32 {
        let directory: String?
        do {
            directory = try traceDirectory(parsed)
        } catch {
            printError("faultline demo: \(error)")
            return 1
        }
        let cases = parsed.has("--all") ? DemoCase.mutationTable : DemoCase.demo
        let version: DemoHTTPVersion = parsed.has("--http2") ? .http2 : .http1_1
        if parsed.has("--explore") {
            var options: ExploreOptions
            do {
                options = try exploreOptions(parsed)
            } catch {
                printError("\(error)")
                return 2
            }
            options.keepDirectory = directory
            let explored = options
            return waitFor { await explore(cases, options: explored, version: version) }
        }
        return waitFor { await play(cases, traces: directory, version: version) }
    }

    /// Runs `body` on the concurrency runtime; the command line's main thread waits for it.
    static func waitFor(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let code = Atomic<Int32>(1)
        let done = DispatchSemaphore(value: 0)
        Task {
            code.store(await body(), ordering: .sequentiallyConsistent)
            done.signal()
        }
        done.wait()
        return code.load(ordering: .sequentiallyConsistent)
    }

    /// Where the traces go: `--traces DIR` (created if needed), a new folder under the system temp
    /// dir for `--keep`, else nowhere (the demo checks them in memory and leaves nothing behind).
    private static func traceDirectory(_ parsed: ParsedArguments) throws -> String? {
        if let directory = parsed.value("--traces") {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure("cannot create \(directory): \(error)")
            }
            return directory
        }
        guard parsed.has("--keep") else { return nil }
        var template = Array((NSTemporaryDirectory() + "faultline-demo-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandFailure(
                "cannot create a folder under \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// The demo's backend and in-process proxy, or nil after saying why they could not start.
    static func startRunner(traces: String? = nil, version: DemoHTTPVersion) -> DemoRunner? {
        do {
            return try DemoRunner(traceDirectory: traces, httpVersion: version)
        } catch {
            printError("faultline demo: cannot start the reference backend: \(error)")
            return nil
        }
    }

    private static func play(_ cases: [DemoCase], traces: String?, version: DemoHTTPVersion) async -> Int32 {
        guard let runner = startRunner(traces: traces, version: version) else { return 1 }
        defer { runner.stop() }
        let speaks = version == .http1_1 ? "" : "; the client speaks \(version.rawValue)"
        print(
            "Faultline demo: reference backend and proxy in this process\(speaks)\(traces.map { "; traces in \($0)" } ?? "")\n"
        )
        var surprises = 0
        for demoCase in cases {
            do {
                let result = try await runner.run(demoCase)
                print(describe(result))
                if !result.asExpected { surprises += 1 }
            } catch {
                surprises += 1
                print("✗ \(demoCase.variant) client, \(demoCase.scenario.summary): the run failed: \(error)\n")
            }
        }
        if surprises == 0 {
            print(
                "Every verdict is the expected one: the correct client keeps the contract and each broken client is caught by the clause it breaks."
            )
        } else {
            print("\(surprises) verdict(s) differ from the expected ones.")
        }
        if let traces {
            // The demo checks against its own contract, not the built-in default: keep it beside
            // the traces so a check of a kept trace gives the demo's verdict.
            let contract = (traces as NSString).appendingPathComponent(DemoRunner.contractFile.name)
            do {
                try Data(DemoRunner.contractFile.text.utf8).write(to: URL(fileURLWithPath: contract))
                print("The demo's contract is in \(contract); check a kept trace with it:")
                print("  faultline check --contract \(contract) TRACE")
            } catch {
                printError("faultline demo: cannot write \(contract): \(error)")
            }
        } else {
            print("(The traces were checked in memory; 'faultline demo --keep' writes them to files.)")
        }
        return surprises == 0 ? 0 : 1
    }

    private static func describe(_ result: DemoRunner.Result) -> String {
        let demoCase = result.demoCase
        let name = demoCase.flaws.isEmpty ? "correct client" : "broken client (\(demoCase.variant))"
        var lines = ["▶ \(name): \(demoCase.scenario.summary)"]
        if result.report.passed {
            lines.append("  verdict: contract holds")
        } else {
            let clauses = result.violated.sorted().map(\.rawValue).joined(separator: ", ")
            lines.append("  verdict: contract broken: \(clauses)")
            let name = result.tracePath ?? "\(demoCase.scenario.rawValue)-\(demoCase.variant)"
            let report = ReportFormatter.text(result.report, traceName: name)
            lines.append(
                report.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(
                    separator: "\n"))
        }
        let expectation =
            demoCase.expected.isEmpty
            ? "no violation" : demoCase.expected.sorted().map(\.rawValue).joined(separator: ", ")
        lines.append("  expected: \(expectation) \(result.asExpected ? "✓" : "✗ (unexpected)")")
        if let path = result.tracePath { lines.append("  trace: \(path)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
