import FaultlineConfig

/// Reads a control call's JSON body, turning every problem into a 400 that says what was expected.
enum ControlBody {
    /// The body as an object reader whose keys must be among `allowed`. An empty body is nil
    /// when `required` is false (every key optional), else a 400 naming the expected keys.
    static func object(
        _ request: ControlRequest, allowed: [String], required: Bool
    ) throws(ControlFailure) -> ConfigObjectReader? {
        let expected = "a JSON object with " + allowed.map { "'\($0)'" }.joined(separator: ", ")
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            if required { throw ControlFailure(400, "\(request.method) \(request.rawPath) expects \(expected)") }
            return nil
        }
        do throws(ConfigError) {
            let node = try JSON5.parse(request.body, file: "request body")
            let reader = try ConfigObjectReader(node, name: "the request body", context: "the request body")
            try reader.finish(allowedKeys: allowed)
            return reader
        } catch {
            throw ControlFailure(400, "\(error) (expected \(expected))")
        }
    }

    /// Runs typed reads of a body, turning a `ConfigError` (wrong type, out of range) into a 400.
    static func read<Value>(_ body: () throws(ConfigError) -> Value) throws(ControlFailure) -> Value {
        do throws(ConfigError) {
            return try body()
        } catch {
            throw ControlFailure(400, error.description)
        }
    }
}
