import FaultlineConfig
import FaultlineCore

/// Decodes one contract file, collecting every error.
///
/// Theory of operation: the file is parsed (a syntax error ends decoding there: nothing after it
/// can be trusted), then each top-level key is decoded on its own; a broken value is recorded
/// and left out so the other keys are still checked. Cross-references (a dependency or `commit`
/// naming a step, a callback's `after`) are checked once every step is known. The contract is
/// returned only when no error was found.
final class ContractFileDecoder {
    let file: String
    private(set) var errors: [ConfigError] = []

    init(file: String) { self.file = file }

    /// Errors in file order (line, then column).
    var sortedErrors: [ConfigError] {
        errors.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
    }

    func report(_ error: ConfigError) { errors.append(error) }

    func report(_ message: String, at location: SourceLocation) { errors.append(ConfigError(message, at: location)) }

    /// Runs `body`, recording its error; nil when it threw.
    func attempt<Value>(_ body: () throws -> Value) -> Value? {
        ConfigError.collect(into: &errors, reader: "a contract decoder", body)
    }

    /// A reader for an object node whose unknown keys are reported at once.
    func object(_ node: ConfigNode, name: String, context: String, allowed: [String]) -> ConfigObjectReader? {
        guard let reader = attempt({ try ConfigObjectReader(node, name: name, context: context) }) else { return nil }
        errors += reader.unknownKeyErrors(allowed: allowed)
        return reader
    }

    func decode(_ bytes: [UInt8]) -> Contract? {
        let root: ConfigNode
        do {
            root = try JSON5.parse(bytes, file: file)
        } catch {
            errors.append(error)
            return nil
        }
        guard
            let reader = object(
                root, name: "a contract file", context: "the contract", allowed: ContractLoader.topLevelKeys)
        else { return nil }
        // Reports name the file, not its path: they get attached and shared.
        var contract = Contract(name: ReportFormatter.traceFileName(file))
        _ = attempt { try reader.string("$schema") }
        _ = attempt { try reader.string("description") }
        if let node = reader.node("clauses") { contract.enabledClauses = clauses(node) }
        if let node = reader.node("retryIdentity") { contract.retryIdentityHeader = retryIdentity(node) }
        var stepNames: [String] = []
        if let node = reader.node("steps") {
            let declared = steps(node)
            contract.steps = declared.steps
            stepNames = declared.names.sorted()
        }
        if let node = reader.node("callbacks") { contract.callbacks = callbacks(node, stepNames: stepNames) }
        if let node = reader.node("dependencies") { contract.dependencies = dependencies(node, stepNames: stepNames) }
        if let node = reader.node("cancel") { contract.cancel = cancel(node) }
        if let node = reader.node("commit") { contract.commitSteps = commit(node, stepNames: stepNames) }
        if reader.node("cancel") == nil, let location = reader.keyLocation("commit") {
            report("'commit' needs 'cancel' to say which marks cancel a job", at: location)
        }
        return errors.isEmpty ? contract : nil
    }

    /// `clauses: { "exactly-once": true, "replay-safe-retry": false }`: every clause starts on.
    private func clauses(_ node: ConfigNode) -> Set<ClauseID> {
        var enabled = Set(ClauseID.allCases)
        guard let reader = attempt({ try ConfigObjectReader(node, name: "'clauses'", context: "'clauses'") }) else {
            return enabled
        }
        let names = ClauseID.allCases.map(\.rawValue)
        for member in reader.members {
            guard let clause = ClauseID(rawValue: member.key) else {
                report(
                    ConfigError(
                        "unknown clause '\(member.key)' in 'clauses'\(ConfigError.didYouMean(member.key, in: names))",
                        at: member.keyLocation))
                continue
            }
            guard let on = attempt({ try member.value.bool("'\(member.key)'") }) else { continue }
            if on { enabled.insert(clause) } else { enabled.remove(clause) }
        }
        return enabled
    }

    /// `retryIdentity: { header: "Idempotency-Key" }`; `header: null` identifies operations by
    /// method, URL and body only.
    private func retryIdentity(_ node: ConfigNode) -> String? {
        guard let reader = object(node, name: "'retryIdentity'", context: "'retryIdentity'", allowed: ["header"]) else {
            return nil
        }
        guard let value = reader.node("header") else {
            report(ConfigError.missingKey("header", context: "'retryIdentity'", at: reader.location))
            return nil
        }
        if case .null = value.kind { return nil }
        guard let name = attempt({ try value.string("'header'") }) else { return nil }
        guard HTTPToken.isToken(name) else {
            report(ConfigError.mismatch("'header'", expected: "a header name (RFC 9110 §5.1 token)", found: value))
            return nil
        }
        return name
    }

    /// `cancel: { mark: "cancel", key: "job" }`.
    private func cancel(_ node: ConfigNode) -> CancelDeclaration? {
        guard let reader = object(node, name: "'cancel'", context: "'cancel'", allowed: ["mark", "key"]) else {
            return nil
        }
        guard let markNode = attempt({ try reader.requiredNode("mark") }),
            let mark = attempt({ try markNode.string("'mark'") })
        else { return nil }
        guard !mark.isEmpty, !mark.contains(where: { $0 == " " || $0 == "\t" || $0 == "=" }) else {
            report(
                ConfigError.mismatch("'mark'", expected: "one word (the first word of the mark label)", found: markNode)
            )
            return nil
        }
        let key = attempt { try reader.string("key") } ?? nil
        return CancelDeclaration(mark: mark, key: key)
    }

    /// `commit: ["write"]` (or one name).
    private func commit(_ node: ConfigNode, stepNames: [String]) -> [String] {
        let elements: [ConfigNode]
        if case .string = node.kind {
            elements = [node]
        } else {
            guard let array = attempt({ try node.array("'commit'") }) else { return [] }
            elements = array
        }
        return elements.compactMap { element in stepReference(element, name: "'commit'", stepNames: stepNames) }
    }

    /// `dependencies: [{ step: "convert", needs: "download" }]`.
    private func dependencies(_ node: ConfigNode, stepNames: [String]) -> [StepDependency] {
        guard let elements = attempt({ try node.array("'dependencies'") }) else { return [] }
        var dependencies: [StepDependency] = []
        for (offset, element) in elements.enumerated() {
            let context = "dependency \(offset + 1)"
            guard let reader = object(element, name: context, context: context, allowed: ["step", "needs"]) else {
                continue
            }
            let step = attempt { try reader.requiredNode("step") }.flatMap {
                stepReference($0, name: "'step'", stepNames: stepNames)
            }
            let needs = attempt { try reader.requiredNode("needs") }.flatMap {
                stepReference($0, name: "'needs'", stepNames: stepNames)
            }
            guard let step, let needs else { continue }
            if step == needs, let location = reader.node("needs")?.location {
                report("step '\(step)' cannot need itself", at: location)
                continue
            }
            dependencies.append(StepDependency(step: step, needs: needs))
        }
        return dependencies
    }

    /// A string that must name a declared step.
    func stepReference(_ node: ConfigNode, name: String, stepNames: [String]) -> String? {
        guard let text = attempt({ try node.string(name) }) else { return nil }
        guard stepNames.contains(text) else {
            let known = stepNames.isEmpty ? " (no steps are declared)" : ConfigError.didYouMean(text, in: stepNames)
            report("unknown step '\(text)'\(known)", at: node.location)
            return nil
        }
        return text
    }

}
