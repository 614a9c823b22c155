import FaultlineHTTP1

extension HTTPHeaders {
    /// A `rewrite`'s header changes, in the order the rule-file format documents: fields removed,
    /// then set (every field of the name replaced by one), then added after the existing ones.
    mutating func apply(
        remove: [String], set: [(name: String, value: String)], add: [(name: String, value: String)]
    ) {
        for name in remove { self.remove(name: name) }
        for field in set { replaceOrAdd(name: field.name, value: field.value) }
        for field in add { self.add(name: field.name, value: field.value) }
    }
}
