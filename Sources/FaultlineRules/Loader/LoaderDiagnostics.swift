import FaultlineConfig

/// Collects every error found while decoding one file, so a file reports all its problems at
/// once. Decoders share one instance, record errors through it and keep going with a default.
final class LoaderDiagnostics {
    private(set) var errors: [ConfigError] = []
    /// Problems that do not stop the file from loading (a `role: "business"` rule without an
    /// auth profile), in the order found.
    private(set) var warnings: [ConfigError] = []

    func report(_ error: ConfigError) { errors.append(error) }

    func report(_ message: String, at location: SourceLocation) { errors.append(ConfigError(message, at: location)) }

    func warn(_ message: String, at location: SourceLocation) { warnings.append(ConfigError(message, at: location)) }

    /// Runs one typed read; on error records it and returns nil so the caller can continue.
    func attempt<T>(_ read: () throws -> T) -> T? {
        ConfigError.collect(into: &errors, reader: "a decoder", read)
    }

    /// Runs a read of an optional key; nil when the key is absent or its value is wrong (the
    /// error is recorded).
    func optional<T>(_ read: () throws -> T?) -> T? {
        attempt(read) ?? nil
    }

    /// A reader for an object node, or nil (with the error recorded) when it is not one. Keys
    /// outside `allowed` are recorded as unknown; nil `allowed` means the keys are free names
    /// (header names, JSON pointers, role names).
    func object(_ node: ConfigNode, name: String, context: String, allowed: [String]?) -> ConfigObjectReader? {
        guard let reader = attempt({ try ConfigObjectReader(node, name: name, context: context) }) else {
            return nil
        }
        if let allowed { errors.append(contentsOf: reader.unknownKeyErrors(allowed: allowed)) }
        return reader
    }

    /// The errors sorted by position.
    var sortedErrors: [ConfigError] { Self.sortedByPosition(errors) }

    /// The warnings sorted by position.
    var sortedWarnings: [ConfigError] { Self.sortedByPosition(warnings) }

    /// Errors of one file sorted by line and column; stable, so errors at one position keep
    /// their order.
    static func sortedByPosition(_ errors: [ConfigError]) -> [ConfigError] {
        errors.enumerated().sorted { lhs, rhs in
            let l = lhs.element.location
            let r = rhs.element.location
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return l.column < r.column }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
