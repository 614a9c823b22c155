import FaultlineBackend
import FaultlineCore
import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `faultline backend`: run the reference auth backend until SIGINT or SIGTERM.
enum BackendCommand {
    static let specs: [OptionSpec] =
        OptionSpec.table(
            """
            --listen ADDR             address to listen on (default 127.0.0.1:9000; port 0 picks one)
            --token-lifetime SECONDS  how long access tokens live (default 300; 0 = born expired)
            --locked ACCOUNT          refuse password logins for ACCOUNT (repeatable; without it, the account named 'locked' is refused)
            --loops N                 event-loop threads (default 1)
            """) + [.helpOption]

    static let help = helpText(
        command: "backend", synopsis: "[--listen ADDR] [--token-lifetime SECONDS] [options]",
        summary: """
            Runs Faultline's reference auth backend: the server that clients under test talk to through \
            the proxy in demos and examples. OAuth-style login with rotating refresh tokens (reusing an old \
            refresh token revokes the whole token family), logout, business endpoints that answer 401 for \
            expired or revoked tokens, a download/convert/write job pipeline with a completion callback, and \
            test controls under /_backend/. State is in memory. Any account name signs in with any \
            password (there are no users to create), except the locked ones (--locked).
            Endpoints:
              POST /oauth/token    grant_type=password&username=U&password=P (any P), or
                                   grant_type=refresh_token&refresh_token=R
              POST /logout         revokes the family of the Bearer token or session cookie
              GET  /v1/messages, /v1/avatar, /v1/count, /v1/me; POST /v1/notes (Idempotency-Key)
              POST /jobs[?fail=STEP]; POST /jobs/ID/download|convert|write|cancel|complete; GET /jobs/ID
              GET  /_backend/stats; POST /_backend/expire[?account=U]; POST /_backend/reset
            Example:
              faultline backend --listen 127.0.0.1:9000 --token-lifetime 30
            """,
        specs: specs)

    static func run(_ arguments: [String]) -> Int32 {
        let configuration: BackendConfiguration
        do {
            guard let parsed = try ParsedArguments.parse(arguments, specs: specs, command: "backend", help: help)
            else { return 0 }
            try parsed.refuseExtraPositionals(command: "backend")
            configuration = try backendConfiguration(parsed)
        } catch {
            printError("\(error)")
            return 2
        }
        let backend = ReferenceBackend(configuration: configuration)
        let address: SocketAddress
        do {
            address = try backend.start()
        } catch {
            printError("faultline backend: \(error)")
            return 1
        }
        let lifetime = configuration.tokenLifetime.components.seconds
        printError(
            "faultline \(FaultlineVersion.string): reference backend on http://\(address) "
                + "(access tokens live \(lifetime) s; stats at http://\(address)/_backend/stats; Ctrl-C stops)")
        let signal = TerminationSignals.wait()
        backend.stop()
        let stats = backend.stats()
        printError(
            "faultline backend: stopped by \(TerminationSignals.name(signal)); \(stats.logins) logins, "
                + "\(stats.refreshes) refreshes, \(stats.reuseDetections) refresh token reuses, \(stats.logouts) logouts"
        )
        return 0
    }

    static func backendConfiguration(_ parsed: ParsedArguments) throws(UsageError) -> BackendConfiguration {
        var configuration = BackendConfiguration()
        configuration.address = try listenAddress(
            parsed.value("--listen") ?? "127.0.0.1:9000", option: "--listen", command: "backend", examplePort: 9000)
        if let text = parsed.value("--token-lifetime") {
            // Whole seconds: expires_in is an integer number of seconds (RFC 6749 §5.1).
            guard let seconds = Int(text), (0...31_536_000).contains(seconds) else {
                throw UsageError(
                    description:
                        "faultline backend: --token-lifetime takes whole seconds from 0 to 31536000, not '\(text)'")
            }
            configuration.tokenLifetime = .seconds(seconds)
        }
        let locked = parsed.values("--locked")
        if !locked.isEmpty { configuration.lockedAccounts = Set(locked) }
        configuration.loopCount = try parsed.integer(
            "--loops", default: configuration.loopCount, in: 1...64, command: "backend", unit: "a number")
        return configuration
    }
}
