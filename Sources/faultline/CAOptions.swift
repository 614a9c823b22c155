import FaultlineTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The options that say which certificate authority Faultline signs with, shared by
/// `faultline run` and `faultline ca`: Faultline's own CA in its configuration folder
/// (`--confdir`), or a CA the user brings (`--ca-cert` with `--ca-key`).
///
/// Two steps, so that each failure gets its exit status: ``source(_:command:)`` checks the
/// command line without touching a file (a `UsageError`, exit 2), and ``Source/load()`` reads or
/// creates the files (a `CommandFailure`, exit 1). ``authority(_:command:)`` does both.
enum CAOptions {
    static let specs: [OptionSpec] = OptionSpec.table(
        """
        --confdir DIR   Faultline's configuration folder, where its CA lives (default $FAULTLINE_HOME or ~/.faultline)
        --ca-cert FILE  sign with this CA certificate (PEM) instead; needs --ca-key
        --ca-key FILE   the unencrypted PEM private key of --ca-cert
        """)

    /// Where the CA comes from, as the command line says.
    enum Source: Equatable {
        /// Faultline's own CA: `ca.pem` and `ca-key.pem` in this folder, created on first use.
        case configurationFolder(String)
        /// A CA the user brings.
        case files(certificate: String, key: String)

        /// The private key's file (which `load()` may not have created yet).
        var keyPath: String {
            switch self {
            case .configurationFolder(let directory): return directory + "/" + CertificateAuthority.keyFileName
            case .files(_, let key): return key
            }
        }

        /// Loads the CA, creating Faultline's own on first use. Throws a `CommandFailure` whose
        /// description names the file, why it cannot be used and what to do; it has no
        /// "faultline COMMAND:" prefix (the caller adds it, as `ControlCommand.run` does).
        func load() throws(CommandFailure) -> CertificateAuthority {
            switch self {
            case .configurationFolder(let directory):
                do {
                    return try CertificateAuthority.loadOrCreate(directory: directory)
                } catch {
                    throw CommandFailure(CAOptions.explain(error, source: self))
                }
            case .files(let certificate, let key):
                do {
                    return try CertificateAuthority.load(certificatePath: certificate, keyPath: key)
                } catch {
                    throw CommandFailure(CAOptions.explain(error, source: self))
                }
            }
        }
    }

    /// The configuration folder, absolute: `--confdir`, else `$FAULTLINE_HOME`, else `~/.faultline`.
    static func confdir(_ parsed: ParsedArguments) -> String {
        absolutePath(parsed.value("--confdir") ?? CertificateAuthority.defaultDirectory)
    }

    /// Checks the CA options without reading any file: `--ca-cert` and `--ca-key` come together
    /// or not at all, and no value is empty. Paths come back absolute.
    static func source(_ parsed: ParsedArguments, command: String) throws(UsageError) -> Source {
        for name in ["--confdir", "--ca-cert", "--ca-key"] where parsed.value(name)?.isEmpty == true {
            throw UsageError(description: "faultline \(command): \(name) needs a path, not an empty value")
        }
        switch (parsed.value("--ca-cert"), parsed.value("--ca-key")) {
        case (nil, nil):
            return .configurationFolder(confdir(parsed))
        case (let certificate?, let key?):
            return .files(certificate: absolutePath(certificate), key: absolutePath(key))
        case (_?, nil):
            throw UsageError(
                description: "faultline \(command): --ca-cert needs --ca-key, the private key that signs with it "
                    + "(or give neither to use Faultline's own CA)")
        case (nil, _?):
            throw UsageError(
                description: "faultline \(command): --ca-key needs --ca-cert, the certificate it belongs to "
                    + "(or give neither to use Faultline's own CA)")
        }
    }

    /// The CA the options name, loaded (and created in the configuration folder on first use).
    /// Throws `UsageError` for options that do not fit together (exit 2) and `CommandFailure`
    /// when the files cannot be read, used or written (exit 1), as `ControlCommand.run` expects.
    static func authority(_ parsed: ParsedArguments, command: String) throws -> CertificateAuthority {
        try source(parsed, command: command).load()
    }

    /// The options that select the same CA again, for commands we print for the user to run.
    static func arguments(_ parsed: ParsedArguments) -> [String] {
        ["--confdir", "--ca-cert", "--ca-key"].flatMap { name in parsed.value(name).map { [name, $0] } ?? [] }
    }

    /// A TLSError from the CA files as one message: the library's description already names the
    /// file and the problem; this adds what the user can do from the command line.
    static func explain(_ error: TLSError, source: Source) -> String {
        switch source {
        case .configurationFolder(let directory):
            let hint: String
            if error.code == TLSError.caWriteFailed {
                hint = "Choose a folder Faultline can write with --confdir DIR or FAULTLINE_HOME."
            } else if error.description.contains("remove") {
                // The library already said what to do with the files.
                hint = "You can also bring a CA with --ca-cert FILE --ca-key FILE."
            } else {
                hint =
                    "Fix or remove ca.pem and ca-key.pem there (a new CA is then made, which clients must trust "
                    + "again), or bring a CA with --ca-cert FILE --ca-key FILE."
            }
            return "cannot use Faultline's CA in \(directory): \(error.description) \(hint)"
        case .files(let certificate, let key):
            return "cannot use the CA given by --ca-cert \(certificate) --ca-key \(key): \(error.description)"
        }
    }

    /// `path` joined to the working directory when relative, without trailing slashes; no
    /// symbolic link is resolved and the path need not exist yet.
    static func absolutePath(_ path: String) -> String {
        var result = path
        while result.hasPrefix("./") { result.removeFirst(2) }
        if !result.hasPrefix("/"), let directory = getcwd(nil, 0) {
            let base = String(cString: directory)
            free(directory)
            result = result == "." ? base : (base == "/" ? "" : base) + "/" + result
        }
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
