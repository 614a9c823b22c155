extension HTTPHeaders {
    /// The elements of the comma-separated lists in all fields named `name` (RFC 9110 §5.6.1),
    /// trimmed of whitespace, ASCII-lowercased, empty elements dropped.
    ///
    /// Use for token lists such as Connection, Upgrade, TE or Transfer-Encoding. Commas inside a
    /// quoted-string do not split an element.
    public func tokens(inField name: String) -> [String] {
        var result: [String] = []
        for field in fields where ASCII.equalsIgnoringCase(field.name, name) {
            Self.forEachListElement(in: field.value) { element in
                result.append(String(decoding: element.lazy.map(ASCII.lowercased), as: UTF8.self))
            }
        }
        return result
    }

    /// Whether `token` (any case) is one of the list elements in the fields named `name`,
    /// e.g. `containsToken("close", inField: "Connection")`.
    public func containsToken(_ token: String, inField name: String) -> Bool {
        let wanted = token.utf8
        for field in fields where ASCII.equalsIgnoringCase(field.name, name) {
            var found = false
            Self.forEachListElement(in: field.value) { element in
                if !found, element.count == wanted.count,
                    zip(element, wanted).allSatisfy({ ASCII.lowercased($0) == ASCII.lowercased($1) })
                {
                    found = true
                }
            }
            if found { return true }
        }
        return false
    }

    /// Calls `body` with each non-empty, OWS-trimmed element of the list `value`.
    private static func forEachListElement(
        in value: String, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void
    ) {
        // A header value is a native String, so its UTF-8 is read in place, not copied.
        var value = value
        value.withUTF8 { forEachListElement(in: $0, body) }
    }

    private static func forEachListElement(
        in bytes: UnsafeBufferPointer<UInt8>, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void
    ) {
        var start = 0
        var index = 0
        var inQuotes = false
        while index <= bytes.count {
            if index == bytes.count || (!inQuotes && bytes[index] == ASCII.comma) {
                var lower = start
                var upper = index
                while lower < upper, ASCII.isWhitespace(bytes[lower]) { lower += 1 }
                while upper > lower, ASCII.isWhitespace(bytes[upper - 1]) { upper -= 1 }
                if lower < upper { body(bytes[lower..<upper]) }
                start = index + 1
            } else if bytes[index] == ASCII.quote {
                inQuotes.toggle()
            } else if inQuotes, bytes[index] == ASCII.backslash, index + 1 < bytes.count {
                index += 1  // quoted-pair: the next byte cannot close the string (RFC 9110 §5.6.4)
            }
            index += 1
        }
    }
}
