/// Reading wire data (message bodies, HAR files) with ``JSONParser``'s lenient options: a byte
/// order mark is skipped, the last of repeated keys wins, and a lone surrogate or a byte that is
/// not UTF-8 reads as U+FFFD.
extension JSONValue {
    /// Parses a whole body; nil when it is not one JSON text.
    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONParser.parse(bytes, options: .lenient)
    }

    /// Parses a whole document, saying where and why it is not JSON.
    package init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        self = try JSONParser.parse(bytes, options: .lenient)
    }
}
