public import FaultlineConfig
import Foundation

/// Reads contract files: JSON5 (comments, trailing commas, unquoted keys) with the same error
/// conventions as rule files, every problem as `file:line:column: message`, an unknown key
/// with the nearest valid one suggested.
///
/// ```json5
/// {
///   clauses: { "replay-safe-retry": false },            // every clause is on unless turned off
///   retryIdentity: { header: "Idempotency-Key" },       // names one operation across retries
///   steps: [
///     { name: "download", match: { method: "POST", path: "/jobs/{job}/download" } },
///     { name: "convert",  match: { method: "POST", path: "/jobs/{job}/convert" } },
///     { name: "write",    match: { method: "POST", path: "/jobs/{job}/write" } },
///   ],
///   dependencies: [{ step: "convert", needs: "download" }, { step: "write", needs: "convert" }],
///   cancel: { mark: "cancel", key: "job" },            // marks labelled "cancel job=42"
///   commit: ["write"],
///   callbacks: [{ match: { method: "POST", path: "/jobs/{job}/complete" }, key: "job", after: "write" }],
/// }
/// ```
public enum ContractLoader {
    /// The keys a contract file may have at its top level.
    public static let topLevelKeys = [
        "$schema", "description", "clauses", "retryIdentity", "callbacks", "steps", "dependencies", "cancel", "commit",
    ]

    /// Decodes a contract from `text`; `file` names it in errors. Returns the contract when the
    /// file has no error, else nil and every error found, in file order.
    public static func load(text: String, file: String) -> (Contract?, [ConfigError]) {
        let decoder = ContractFileDecoder(file: file)
        let contract = decoder.decode(Array(text.utf8))
        return (contract, decoder.sortedErrors)
    }

    /// Reads and decodes the contract file at `path`. Throws ``ContractFileError/unreadable(path:reason:)``
    /// when there is no file to read (it does not exist, is a directory, cannot be read), and
    /// ``ContractFileError/invalid(path:errors:)`` with every error in file order when it does not decode.
    public static func load(file path: String) throws(ContractFileError) -> Contract {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "does not exist")
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "cannot be read")
        }
        let decoder = ContractFileDecoder(file: path)
        let contract = decoder.decode([UInt8](data))
        let errors = decoder.sortedErrors
        guard let contract, errors.isEmpty else { throw .invalid(path: path, errors: errors) }
        return contract
    }
}

/// Why a contract file gave no contract: there is no file to read, or what it says is wrong.
public enum ContractFileError: Error, Equatable, CustomStringConvertible {
    /// No file to read: `reason` is "does not exist", "is a directory" or "cannot be read". Not a
    /// position in the file: there is none.
    case unreadable(path: String, reason: String)
    /// The file has errors, each `file:line:column: message`, in file order.
    case invalid(path: String, errors: [ConfigError])

    /// `the contract file PATH does not exist`, or one `file:line:column: message` per line.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "the contract file \(path) \(reason)"
        case .invalid(_, let errors): errors.map(\.description).joined(separator: "\n")
        }
    }

    /// One line: the description of an unreadable file, or `N errors in PATH` for an invalid one.
    public var summary: String {
        switch self {
        case .unreadable: description
        case .invalid(let path, let errors): "\(errors.count) error\(errors.count == 1 ? "" : "s") in \(path)"
        }
    }
}
