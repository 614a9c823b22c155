/// The contract a report was made against, as the report names it: the same trace can pass in
/// part under the built-in default and pass under a contract file, so every report says which.
public struct ContractSummary: Sendable, Equatable, Codable {
    /// `built-in default`, or the contract file's name.
    public var name: String
    /// Clauses the contract turned off.
    public var disabled: [ClauseID]
    /// Declared callbacks, steps, dependencies and commit steps.
    public var callbacks: Int
    public var steps: Int
    public var dependencies: Int
    public var commitSteps: Int
    /// The header that names one operation across retries, if any.
    public var retryIdentityHeader: String?

    /// The summary of `contract`.
    public init(_ contract: Contract) {
        name = contract.name
        disabled = ClauseID.allCases.filter { !contract.isEnabled($0) }
        callbacks = contract.callbacks.count
        steps = contract.steps.count
        dependencies = contract.dependencies.count
        commitSteps = contract.commitSteps.count
        retryIdentityHeader = contract.retryIdentityHeader
    }

    /// `contract: built-in default (…)`: the first line of a text report.
    public var line: String { "contract: " + description }

    /// `built-in default (all 9 clauses on; declares no callbacks, steps or dependencies; retry
    /// identity Idempotency-Key)`: the name and what the contract judges.
    public var description: String {
        let total = ClauseID.allCases.count
        let clauses =
            disabled.isEmpty
            ? "all \(total) clauses on"
            : "\(total - disabled.count) of \(total) clauses on, "
                + disabled.map(\.rawValue).joined(separator: ", ") + " off"
        let counted = [
            (callbacks, "callback"), (steps, "step"), (dependencies, "dependency"), (commitSteps, "commit step"),
        ].filter { $0.0 > 0 }.map { count, noun in
            "\(count) " + (count == 1 ? noun : noun == "dependency" ? "dependencies" : noun + "s")
        }
        let declares =
            counted.isEmpty
            ? "declares no callbacks, steps or dependencies" : "declares " + counted.joined(separator: ", ")
        let identity = retryIdentityHeader.map { "retry identity \($0)" } ?? "no retry identity header"
        return "\(name) (\(clauses); \(declares); \(identity))"
    }
}
