/// The field lines of a header or trailer section, in the order received (RFC 9110 §5).
///
/// Names keep their case as written; look-ups ignore ASCII case (RFC 9110 §5.1). Repeated
/// fields stay separate entries, so a proxy forwards exactly what it received. Equality compares
/// the fields in order, names and values exactly.
public struct HTTPHeaders: Sendable, Equatable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// One field line: a name and its value with surrounding whitespace removed.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        /// The value arrived as obs-text that is not UTF-8 (RFC 9110 §5.5): it was read byte for
        /// byte as Latin-1, and the encoder writes it back the same way, so a proxy passes those
        /// bytes through unchanged.
        var encodesAsLatin1 = false

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        init(name: String, value: String, encodesAsLatin1: Bool) {
            self.name = name
            self.value = value
            self.encodesAsLatin1 = encodesAsLatin1
        }
    }

    var fields: [Field]

    /// An empty section.
    public init() { fields = [] }

    /// An empty section with room for `minimumCapacity` fields, for a section built field by
    /// field on the hot path (growing one field at a time reallocates four times for ten fields).
    public init(minimumCapacity: Int) {
        fields = []
        fields.reserveCapacity(minimumCapacity)
    }

    /// A section with these `(name, value)` pairs, in order.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// A section written as `[("Host", "example.com"), ("Accept", "*/*")]`.
    public init(arrayLiteral elements: (String, String)...) {
        self.init(elements)
    }

    init(fields: [Field]) { self.fields = fields }

    public var startIndex: Int { 0 }
    public var endIndex: Int { fields.count }

    public subscript(position: Int) -> Field { fields[position] }

    /// The value of the first field named `name` (any case), or nil.
    public func first(name: String) -> String? {
        for field in fields where ASCII.equalsIgnoringCase(field.name, name) { return field.value }
        return nil
    }

    /// The values of all fields named `name` (any case), in order.
    public func values(name: String) -> [String] {
        fields.compactMap { ASCII.equalsIgnoringCase($0.name, name) ? $0.value : nil }
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(name: String) -> Bool {
        fields.contains { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// Appends a field line after the existing ones.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Appends a field as it is, keeping how its value is written (a copied obs-text value stays
    /// byte-for-byte identical).
    public mutating func append(_ field: Field) {
        fields.append(field)
    }

    /// Removes every field named `name` (any case).
    public mutating func remove(name: String) {
        fields.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// Sets the first field named `name` to `value` and removes the others of that name, or appends
    /// the field when there is none.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let index = fields.firstIndex(where: { ASCII.equalsIgnoringCase($0.name, name) }) else {
            add(name: name, value: value)
            return
        }
        fields[index].value = value
        fields[index].encodesAsLatin1 = false
        var next = index + 1
        while next < fields.count {
            if ASCII.equalsIgnoringCase(fields[next].name, name) {
                fields.remove(at: next)
            } else {
                next += 1
            }
        }
    }
}

extension HTTPHeaders.Field {
    /// Whether the field's name is `name`, ignoring ASCII case (RFC 9110 §5.1), without allocating.
    public func hasName(_ name: String) -> Bool {
        ASCII.equalsIgnoringCase(self.name, name)
    }
}
