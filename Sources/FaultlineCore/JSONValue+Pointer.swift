extension JSONValue {
    /// The value an RFC 6901 pointer refers to, or nil when the pointer is malformed or leads
    /// nowhere (a missing member, an index past the end, `-`, a step into a scalar).
    public func value(at pointer: String) -> JSONValue? {
        guard let parsed = try? JSONPointer(pointer) else { return nil }
        return value(at: parsed)
    }

    /// The value a parsed pointer refers to, or nil when it leads nowhere.
    public func value(at pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let members):
                guard let member = members.first(where: { $0.key == token }) else { return nil }
                current = member.value
            case .array(let elements):
                guard let index = JSONPointer.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            case .null, .bool, .number, .string:
                return nil
            }
        }
        return current
    }

    /// Sets the value at an RFC 6901 pointer, as a response rewrite's `jsonSet` does.
    ///
    /// Missing object members are created (intermediate ones as empty objects); in an array, an
    /// index replaces that element, and `-` or the index one past the end appends. Throws when
    /// the pointer is malformed, steps into a string, number, boolean or null, or names an array
    /// index that is not a number or lies further past the end. The empty pointer replaces the
    /// whole value.
    public mutating func set(_ newValue: JSONValue, at pointer: String) throws(JSONPointerError) {
        try set(newValue, at: try JSONPointer(pointer))
    }

    /// Sets the value at a parsed pointer; see ``set(_:at:)-(_,String)``.
    public mutating func set(_ newValue: JSONValue, at pointer: JSONPointer) throws(JSONPointerError) {
        try set(newValue, tokens: pointer.tokens[...], pointer: pointer)
    }

    private mutating func set(_ newValue: JSONValue, tokens: ArraySlice<String>, pointer: JSONPointer)
        throws(JSONPointerError)
    {
        guard let token = tokens.first else {
            self = newValue
            return
        }
        let rest = tokens.dropFirst()
        switch self {
        case .object(var members):
            // Take the storage out of `self` so the member is uniquely referenced while it changes;
            // `defer` puts it back on success and on error alike (every level restores itself).
            self = .null
            defer { self = .object(members) }
            if let index = members.firstIndex(where: { $0.key == token }) {
                try members[index].value.set(newValue, tokens: rest, pointer: pointer)
            } else {
                var child = JSONValue.object([])
                try child.set(newValue, tokens: rest, pointer: pointer)
                members.append(JSONMember(key: token, value: child))
            }
        case .array(var elements):
            let index: Int
            if token == "-" {
                index = elements.count
            } else if let parsed = JSONPointer.arrayIndex(token) {
                index = parsed
            } else {
                throw JSONPointerError(pointer: pointer.description, message: "'\(token)' is not an array index")
            }
            guard index <= elements.count else {
                throw JSONPointerError(
                    pointer: pointer.description,
                    message: "index \(index) is past the end of an array of \(elements.count)")
            }
            self = .null
            defer { self = .array(elements) }
            if index == elements.count {
                var child = JSONValue.object([])
                try child.set(newValue, tokens: rest, pointer: pointer)
                elements.append(child)
            } else {
                try elements[index].set(newValue, tokens: rest, pointer: pointer)
            }
        case .null, .bool, .number, .string:
            throw JSONPointerError(
                pointer: pointer.description, message: "'\(token)' cannot be set inside \(typeDescription)")
        }
    }

    /// `a string`, `a number`... for pointer messages.
    private var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
