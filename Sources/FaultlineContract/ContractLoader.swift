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

    /// Reads and decodes the contract file at `path`. A file that cannot be read is one error
    /// at its line 1, column 1.
    public static func load(contentsOfFile path: String) -> (Contract?, [ConfigError]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            return (
                nil, [ConfigError("the contract file \(reason)", at: SourceLocation(file: path, line: 1, column: 1))]
            )
        }
        let decoder = ContractFileDecoder(file: path)
        let contract = decoder.decode([UInt8](data))
        return (contract, decoder.sortedErrors)
    }
}
