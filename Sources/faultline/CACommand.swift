import FaultlineCore
import FaultlinePosix
import FaultlineTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `faultline ca path|export|info|simulator`: show and hand out the certificate authority that
/// `faultline run` signs intercepted hosts' certificates with, so clients can trust it.
///
/// Every subcommand loads the CA the way `run` does (``CAOptions``), creating Faultline's own on
/// first use. Exit statuses: 0 done, 1 the CA or an output file could not be used, 2 bad usage.
/// Data goes to stdout and nothing else does, so `$(faultline ca path)` and pipes stay clean.
enum CACommand {
    /// One `faultline ca` subcommand: its help and what it does with the loaded CA.
    struct Subcommand: Sendable {
        let name: String
        let synopsis: String
        let summary: String
        let specs: [OptionSpec]
        let run: @Sendable (Invocation) throws -> Void
    }

    /// What a subcommand gets: the parsed command line, where the CA came from, and the CA.
    struct Invocation {
        let parsed: ParsedArguments
        let source: CAOptions.Source
        let authority: CertificateAuthority
    }

    static let commonSpecs = CAOptions.specs + [.helpOption]

    static let subcommands: [Subcommand] = [
        Subcommand(
            name: "path", synopsis: "[--confdir DIR | --ca-cert FILE --ca-key FILE]",
            summary: """
                Prints the path of the CA certificate (PEM), creating Faultline's CA on first use. \
                Example: curl --cacert "$(faultline ca path)" --proxy http://127.0.0.1:8080 https://example.com/
                """,
            specs: commonSpecs, run: printPath),
        Subcommand(
            name: "export", synopsis: "[--format pem|der] [--output FILE] [CA options]",
            summary: """
                Writes the CA certificate to stdout, or to --output FILE: PEM (the default) for curl, \
                Python and most trust stores, DER for iOS devices and Windows. DER is binary and is \
                not written to a terminal.
                """,
            specs: OptionSpec.table(
                """
                --format FORMAT  pem (default) or der
                --output FILE    write to FILE instead of stdout (- is stdout)
                """) + commonSpecs,
            run: export),
        Subcommand(
            name: "info", synopsis: "[CA options]",
            summary: "Shows the CA certificate's subject, its SHA-256 fingerprint and where its files are.",
            specs: commonSpecs, run: printInfo),
        Subcommand(
            name: "simulator", synopsis: "[CA options]",
            summary: """
                Prints the command that makes the booted iOS simulator trust the CA, and how to install \
                it on a device. The output is a shell script: faultline ca simulator | sh
                """,
            specs: commonSpecs, run: printSimulatorInstructions),
    ]

    static let help = """
        usage: faultline ca <subcommand> [options]

        Faultline signs the certificates it shows to the clients it intercepts with its own certificate
        authority. Clients must trust that CA; these commands hand it out. The CA is created on first use
        as ca.pem and ca-key.pem (mode 0600) in Faultline's configuration folder, or brought by the user
        with --ca-cert and --ca-key.

        subcommands:
          path        print the CA certificate's path (curl --cacert "$(faultline ca path)")
          export      write the certificate as PEM or DER (export --format der --output faultline-ca.cer)
          info        show its subject, SHA-256 fingerprint and files
          simulator   print the command that trusts it in the booted iOS simulator, and the device steps

        options (every subcommand; see faultline ca SUBCOMMAND --help):
        \(optionLines(commonSpecs))
        """

    static func run(_ arguments: [String]) -> Int32 {
        ControlCommand.run("ca") {
            let parsed = try ParsedArguments.parse(arguments, specs: everySpec, command: "ca")
            guard let name = parsed.positionals.first else {
                guard arguments.isEmpty || parsed.has("--help") else {
                    throw UsageError(description: "faultline ca: expected a subcommand; see 'faultline ca --help'")
                }
                print(help)
                return 0
            }
            let subcommand = try self.subcommand(named: name)
            let command = "ca \(name)"
            if parsed.has("--help") {
                let (synopsis, summary) = (subcommand.synopsis, subcommand.summary)
                print(helpText(command: command, synopsis: synopsis, summary: summary, specs: subcommand.specs))
                return 0
            }
            try checkFits(parsed, subcommand)
            try checkExportOptions(parsed, command: command)
            let source = try CAOptions.source(parsed, command: command)
            let authority = try source.load()
            try subcommand.run(Invocation(parsed: parsed, source: source, authority: authority))
            return 0
        }
    }

    /// Every subcommand's options once, for parsing before the subcommand is known.
    static let everySpec = subcommands.flatMap(\.specs).reduce(into: [OptionSpec]()) { specs, spec in
        if !specs.contains(where: { $0.name == spec.name }) { specs.append(spec) }
    }

    /// The subcommand `name`, or a usage error suggesting the nearest one.
    static func subcommand(named name: String) throws(UsageError) -> Subcommand {
        if let subcommand = subcommands.first(where: { $0.name == name }) { return subcommand }
        var message = "faultline ca: unknown subcommand '\(name)'"
        if let suggestion = EditDistance.nearest(to: name, in: subcommands.map(\.name)) {
            message += " (did you mean '\(suggestion)'?)"
        }
        throw UsageError(description: message + "; see 'faultline ca --help'")
    }

    /// Refuses another subcommand's options and extra arguments.
    static func checkFits(_ parsed: ParsedArguments, _ subcommand: Subcommand) throws(UsageError) {
        let command = "faultline ca \(subcommand.name)"
        for option in parsed.options where !subcommand.specs.contains(where: { $0.name == option.name }) {
            let owners = subcommands.filter { $0.specs.contains { $0.name == option.name } }
            let names = owners.map { "'faultline ca \($0.name)'" }.joined(separator: " or ")
            throw UsageError(description: "\(command): \(option.name) goes with \(names)")
        }
        try parsed.refuseExtraPositionals(beyond: 1, command: "ca \(subcommand.name)")
    }

    // MARK: Subcommands

    static func printPath(_ invocation: Invocation) throws {
        try writeAll(Array((certificatePath(invocation) + "\n").utf8), to: STDOUT_FILENO, name: "stdout")
    }

    static func printInfo(_ invocation: Invocation) throws {
        let rows = [
            ["subject:", invocation.authority.subjectDescription],
            ["SHA-256:", invocation.authority.sha256Fingerprint],
            ["certificate:", certificatePath(invocation)],
            ["key:", invocation.source.keyPath],
        ]
        try writeAll(Array((tableText(rows) + "\n").utf8), to: STDOUT_FILENO, name: "stdout")
    }

    /// Checks `--format` and where DER would go before the CA is created, so a refused export
    /// leaves nothing behind.
    static func checkExportOptions(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        guard let format = parsed.value("--format") else { return }
        guard format == "pem" || format == "der" else {
            throw UsageError(description: "faultline \(command): --format takes pem or der, not '\(format)'")
        }
        let output = parsed.value("--output") ?? "-"
        if format == "der", output == "-", isatty(STDOUT_FILENO) == 1 {
            throw UsageError(
                description: "faultline \(command): DER is binary and stdout is a terminal; write it to a file with "
                    + "--output faultline-ca.cer, or redirect: faultline ca export --format der > faultline-ca.cer")
        }
    }

    static func export(_ invocation: Invocation) throws {
        let authority = invocation.authority
        let bytes =
            invocation.parsed.value("--format") == "der"
            ? authority.certificateDER : Array(authority.certificatePEM.utf8)
        let output = invocation.parsed.value("--output") ?? "-"
        if output == "-" {
            try writeAll(bytes, to: STDOUT_FILENO, name: "stdout")
            return
        }
        // Opening with O_TRUNC would destroy the CA's own files before a byte is written.
        for path in [certificatePath(invocation), invocation.source.keyPath] where sameFile(output, path) {
            throw UsageError(
                description: "faultline ca export: --output \(output) is the CA's own file \(path); choose another")
        }
        // A certificate is public: readable by all, like the ca.pem it is copied from.
        let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot write \(output): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, name: output)
    }

    // MARK: Helpers

    /// The CA certificate's path; the loaded CA always has one (it was read from a file).
    static func certificatePath(_ invocation: Invocation) -> String {
        guard let path = invocation.authority.certificatePath else {
            preconditionFailure("a CA loaded from files has a certificate path")
        }
        return path
    }

    /// Whether `first` and `second` name one file: the same absolute path, or the same inode
    /// (through a link).
    static func sameFile(_ first: String, _ second: String) -> Bool {
        if CAOptions.absolutePath(first) == CAOptions.absolutePath(second) { return true }
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Writes all of `bytes`, retrying short writes and EINTR; EPIPE and the rest are failures.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, name: String) throws(CommandFailure) {
        do {
            try FileIO.writeAll(descriptor, bytes)
        } catch {
            throw CommandFailure("cannot write \(name): \(String(cString: strerror(error.errno)))")
        }
    }
}
