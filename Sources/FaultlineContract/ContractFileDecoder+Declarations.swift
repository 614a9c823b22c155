import FaultlineConfig
import FaultlineCore

/// Steps, callbacks and their `match` objects.
extension ContractFileDecoder {
    static let matchKeys = ["method", "path", "host"]
    static let stepKeys = ["name", "match", "key"]
    static let callbackKeys = ["name", "match", "key", "required", "after"]

    /// `steps: [{ name: "download", match: {...}, key?: "job" }]`; names are unique. Also returns
    /// every name declared, including steps with errors, so references to them are not reported too.
    func steps(_ node: ConfigNode) -> (steps: [StepDeclaration], names: [String]) {
        guard let elements = attempt({ try node.array("'steps'") }) else { return ([], []) }
        var steps: [StepDeclaration] = []
        var firstDefinitions: [String: SourceLocation] = [:]
        for (offset, element) in elements.enumerated() {
            let context = "step \(offset + 1)"
            guard var reader = object(element, name: context, context: context, allowed: Self.stepKeys) else {
                continue
            }
            guard let nameNode = attempt({ try reader.requiredNode("name") }),
                let name = attempt({ try nameNode.string("'name'") })
            else { continue }
            guard !name.isEmpty else {
                report(ConfigError.mismatch("'name'", expected: "a non-empty string", found: nameNode))
                continue
            }
            if let first = firstDefinitions[name] {
                report("step '\(name)' is already declared at \(first.lineColumn)", at: nameNode.location)
                continue
            }
            firstDefinitions[name] = nameNode.location
            reader.context = "step '\(name)'"
            guard let pattern = match(reader) else { continue }
            guard let key = key(reader, pattern: pattern) else { continue }
            steps.append(StepDeclaration(name: name, match: pattern, key: key))
        }
        return (steps, Array(firstDefinitions.keys))
    }

    /// `callbacks: [{ match: {...}, key: "job", required?: ["42"], after?: "write" }]`, or
    /// `{ name: "complete", key?: "job", ... }` without `match` for a completion the app marks
    /// itself (`proxy.step("complete", job: 7, outcome: .succeeded)`).
    func callbacks(_ node: ConfigNode, stepNames: [String]) -> [CallbackDeclaration] {
        guard let elements = attempt({ try node.array("'callbacks'") }) else { return [] }
        var callbacks: [CallbackDeclaration] = []
        for (offset, element) in elements.enumerated() {
            let context = "callback \(offset + 1)"
            guard let reader = object(element, name: context, context: context, allowed: Self.callbackKeys) else {
                continue
            }
            let name = attempt { try reader.string("name") } ?? nil
            let pattern: RequestPattern?
            let key: String?
            if reader.node("match") == nil, let name, !name.isEmpty {
                // Only the app's step marks can deliver it: the key is the mark's word, as written.
                pattern = nil
                guard let written = attempt({ try reader.string("key") }) else { continue }
                key = written
            } else {
                if reader.node("match") == nil {
                    report(
                        "\(context) needs 'match' (the callback's request), or a 'name' for a completion the app marks itself as a step",
                        at: reader.location)
                    continue
                }
                guard let matched = match(reader), let matchedKey = self.key(reader, pattern: matched) else { continue }
                pattern = matched
                key = matchedKey
            }
            var required: [String] = []
            if let list = attempt({ try reader.array("required") }) ?? nil {
                for value in list {
                    switch value.kind {
                    case .string(let text): required.append(text)
                    case .number:
                        if let number = attempt({ try value.int("'required' entry") }) {
                            required.append(String(number))
                        }
                    default:
                        report(
                            ConfigError.mismatch(
                                "'required' entry", expected: "a key (string or integer)", found: value))
                    }
                }
            }
            var after: String?
            if let afterNode = reader.node("after") {
                after = stepReference(afterNode, name: "'after'", stepNames: stepNames)
                if after == nil { continue }
            }
            if key == nil, !required.isEmpty, let location = reader.node("required")?.location {
                let why = pattern == nil ? "it names no 'key'" : "its path has no parameter"
                report("'required' lists keys, but this callback has no key (\(why))", at: location)
                continue
            }
            callbacks.append(
                CallbackDeclaration(
                    name: name ?? pattern?.path.text ?? "", match: pattern, key: key, required: required, after: after))
        }
        return callbacks
    }

    /// The required `match` object of a step or callback.
    private func match(_ reader: ConfigObjectReader) -> RequestPattern? {
        guard let node = attempt({ try reader.requiredNode("match") }) else { return nil }
        let context = "'match' of \(reader.context)"
        guard let match = object(node, name: "'match'", context: context, allowed: Self.matchKeys) else { return nil }
        var methods: [String] = []
        if let methodNode = match.node("method") {
            switch methodNode.kind {
            case .string(let method): methods = [method]
            case .array(let elements):
                methods = elements.compactMap { element in attempt { try element.string("'method'") } }
            default:
                report(ConfigError.mismatch("'method'", expected: "a method or a list of methods", found: methodNode))
            }
            for method in methods where !HTTPToken.isToken(method) {
                report(ConfigError.mismatch("'method'", expected: "an HTTP method such as \"POST\"", found: methodNode))
                return nil
            }
        }
        guard let pathNode = attempt({ try match.requiredNode("path") }),
            let pathText = attempt({ try pathNode.string("'path'") })
        else { return nil }
        let template: PathTemplate
        do throws(PathTemplateError) {
            template = try PathTemplate(pathText)
        } catch {
            report("'path' \(error.message)", at: pathNode.location)
            return nil
        }
        let host = attempt { try match.string("host") } ?? nil
        return RequestPattern(methods: methods, path: template, host: host)
    }

    /// The `key` parameter: written, or the template's only parameter, or nil (one key for all)
    /// when the template has none. Returns `.none` on error, `.some(nil)` for "no key".
    private func key(_ reader: ConfigObjectReader, pattern: RequestPattern) -> String?? {
        let parameters = pattern.path.parameters
        guard let keyNode = reader.node("key") else {
            if parameters.count > 1 {
                let list = parameters.map { "{\($0)}" }.joined(separator: ", ")
                report(
                    "\(reader.context) needs 'key': its path has several parameters (\(list))",
                    at: reader.node("match")?.location ?? reader.location)
                return .none
            }
            return .some(parameters.first)
        }
        guard let key = attempt({ try keyNode.string("'key'") }) else { return .none }
        guard parameters.contains(key) else {
            let known =
                parameters.isEmpty
                ? " (the path has no parameter)" : ConfigError.didYouMean(key, in: parameters)
            report(
                "'key' must name a parameter of '\(pattern.path.text)', found '\(key)'\(known)", at: keyNode.location)
            return .none
        }
        return .some(key)
    }
}
