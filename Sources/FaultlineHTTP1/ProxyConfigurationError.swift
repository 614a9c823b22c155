/// A configuration value that cannot be used, with a sentence saying what was expected.
public struct ProxyConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
