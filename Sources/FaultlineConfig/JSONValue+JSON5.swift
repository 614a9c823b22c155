public import FaultlineCore

extension JSONValue {
    /// Parses a JSON (or JSON5) body leniently: comments, trailing commas and the other JSON5
    /// forms are accepted. Returns nil when the bytes are not a single valid document (or not
    /// UTF-8); call `JSON5.parse(_:file:)` to learn why.
    public static func parseJSON(_ bytes: [UInt8]) -> JSONValue? {
        do {
            return try JSON5.parse(bytes, file: "<body>").value
        } catch {
            return nil
        }
    }
}
