/// Typed access to the members of one object node: the building block of a decoder.
///
/// Each getter returns nil when the key is absent and throws a ``ConfigError`` at the value when
/// it has the wrong type or range; `required…` getters throw at the object when the key is
/// missing. After reading, ``unknownKeyErrors(allowed:)`` reports every key the decoder does not
/// know, each at the key, with the nearest allowed key suggested.
///
/// `context` names the object in messages ("rule 'expire'", "'match' of rule 'expire'"), so
/// errors read `unknown key 'mathc' in rule 'expire' (did you mean 'match'?)`.
public struct ConfigObjectReader: Sendable {
    /// The object node read.
    public let node: ConfigNode
    /// Its members in file order.
    public let members: [ConfigNode.Member]
    /// How the object is named in messages about its keys; may be refined once a name is read.
    public var context: String

    /// Wraps an object node. Throws `<name> must be an object, found …` at the node when it is
    /// not one; `name` defaults to `context`.
    public init(_ node: ConfigNode, name: String? = nil, context: String) throws(ConfigError) {
        guard case .object(let members) = node.kind else {
            throw ConfigError.mismatch(name ?? context, expected: "an object", found: node)
        }
        self.node = node
        self.members = members
        self.context = context
    }

    /// Where the object starts (its `{`): where "missing key" errors point.
    public var location: SourceLocation { node.location }

    /// The keys in file order.
    public var keys: [String] { members.map(\.key) }

    /// The member with this key, with the key's position.
    public func member(_ key: String) -> ConfigNode.Member? { members.first { $0.key == key } }

    /// The value of a key, untyped.
    public func node(_ key: String) -> ConfigNode? { member(key)?.value }

    /// Where a key is written, when present.
    public func keyLocation(_ key: String) -> SourceLocation? { member(key)?.keyLocation }

    /// The value of a key that must be present.
    public func requiredNode(_ key: String) throws(ConfigError) -> ConfigNode {
        guard let value = node(key) else { throw ConfigError.missingKey(key, context: context, at: location) }
        return value
    }

    /// The string at `key`, nil when absent; another type is an error at the value.
    public func string(_ key: String) throws(ConfigError) -> String? { try node(key)?.string("'\(key)'") }

    /// The string at `key`; absent is an error at the object, another type at the value.
    public func requiredString(_ key: String) throws(ConfigError) -> String { try requiredNode(key).string("'\(key)'") }

    /// The boolean at `key`, nil when absent.
    public func bool(_ key: String) throws(ConfigError) -> Bool? { try node(key)?.bool("'\(key)'") }

    /// The elements of the array at `key`, nil when absent.
    public func array(_ key: String) throws(ConfigError) -> [ConfigNode]? { try node(key)?.array("'\(key)'") }

    /// The integer at `key` within `range`, nil when absent; see ``ConfigNode/int(_:in:expected:)``.
    public func int(_ key: String, in range: ClosedRange<Int>? = nil, expected: String? = nil) throws(ConfigError)
        -> Int?
    {
        try node(key)?.int("'\(key)'", in: range, expected: expected)
    }

    /// The integer at `key` within `range`; absent is an error at the object.
    public func requiredInt(_ key: String, in range: ClosedRange<Int>? = nil, expected: String? = nil)
        throws(ConfigError) -> Int
    {
        try requiredNode(key).int("'\(key)'", in: range, expected: expected)
    }

    /// The finite number at `key` within `range`, nil when absent.
    public func double(_ key: String, in range: ClosedRange<Double>? = nil, expected: String? = nil) throws(ConfigError)
        -> Double?
    {
        try node(key)?.double("'\(key)'", in: range, expected: expected)
    }

    /// A reader for a nested object; `context` names it in messages about its own keys.
    public func object(_ key: String, context: String) throws(ConfigError) -> ConfigObjectReader? {
        guard let value = node(key) else { return nil }
        return try ConfigObjectReader(value, name: "'\(key)'", context: context)
    }

    /// One error per key not in `allowed`, at the key, in file order, each suggesting the nearest
    /// allowed key when one is close.
    public func unknownKeyErrors(allowed: [String]) -> [ConfigError] {
        members.filter { !allowed.contains($0.key) }.map {
            ConfigError.unknownKey($0.key, at: $0.keyLocation, context: context, allowed: allowed)
        }
    }

    /// Throws the first unknown key; use ``unknownKeyErrors(allowed:)`` to report all of them.
    public func finish(allowedKeys: [String]) throws(ConfigError) {
        if let first = unknownKeyErrors(allowed: allowedKeys).first { throw first }
    }
}
