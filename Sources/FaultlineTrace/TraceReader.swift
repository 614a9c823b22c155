import FaultlineCore
import Foundation

/// Reads traces written by `TraceRecorder` (JSON Lines, described in README.md, "The trace") without running a proxy.
///
/// Strict about what the writer guarantees: line 1 is a header of a known version, every other
/// line is one JSON object with `seq`, `wall`, `mono_ns` and `event` of the right types, and
/// `seq` increases strictly down the file. Blank lines are allowed only at the end. Every error
/// names its 1-based line.
public enum TraceReader {
    /// Reads the trace file at `path`. Throws the file system's error when the file cannot be
    /// read, else `TraceReadError` for the first bad line.
    public static func read(contentsOfFile path: String) throws -> Trace {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = data.withUnsafeBytes { raw -> Result<Trace, TraceReadError> in
            do throws(TraceReadError) {
                return .success(try read(utf8: raw.bindMemory(to: UInt8.self)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads a whole trace held in memory (e.g. `TraceRecorder.memoryContents()`).
    public static func read(_ text: String) throws(TraceReadError) -> Trace {
        try withBytes(of: text) { bytes throws(TraceReadError) in try read(utf8: bytes) }
    }

    /// Parses one event line; `number` (1-based) is used in the error. For readers that follow a
    /// trace line by line (`tail -f`).
    public static func parseEvent(line: String, number: Int) throws(TraceReadError) -> TraceEvent {
        try withBytes(of: line) { bytes throws(TraceReadError) in try parseEvent(bytes, number: number) }
    }

    /// Parses a header line (line 1).
    public static func parseHeader(line: String) throws(TraceReadError) -> TraceHeader {
        try withBytes(of: line) { bytes throws(TraceReadError) in try parseHeader(bytes) }
    }

    /// `String.withUTF8` only rethrows untyped errors, so the typed error travels in a Result.
    private static func withBytes<Value>(
        of text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> Value
    ) throws(TraceReadError) -> Value {
        var text = text
        let result = text.withUTF8 { bytes -> Result<Value, TraceReadError> in
            do throws(TraceReadError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    static func read(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> Trace {
        var lines: [UnsafeBufferPointer<UInt8>] = []
        forEachPiece(of: bytes, separatedBy: UInt8(ascii: "\n")) { line in
            // Tolerate CRLF line ends from editors and Windows tools.
            lines.append(line.last == UInt8(ascii: "\r") ? line.slice(0, line.count - 1) : line)
        }
        // Blank lines at the end (a final newline, or more) are allowed; nowhere else.
        while let last = lines.last, lines.count > 1, last.allSatisfy(ASCII.isWhitespace) { lines.removeLast() }
        guard let first = lines.first, !first.allSatisfy(ASCII.isWhitespace) else {
            throw TraceReadError(line: 1, message: "empty trace: the header line is missing")
        }
        let header = try parseHeader(first)
        var events: [TraceEvent] = []
        events.reserveCapacity(lines.count - 1)
        for index in 1..<lines.count {
            let number = index + 1
            guard !lines[index].allSatisfy(ASCII.isWhitespace) else {
                throw TraceReadError(line: number, message: "blank line in the middle of the trace")
            }
            let event = try parseEvent(lines[index], number: number)
            if let previous = events.last, event.seq <= previous.seq {
                throw TraceReadError(
                    line: number, message: "seq \(event.seq) does not follow seq \(previous.seq) of the line before")
            }
            events.append(event)
        }
        return Trace(header: header, events: events)
    }

    static func parseHeader(_ line: UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> TraceHeader {
        let missing = "missing header: line 1 must be a Faultline trace header ({\"faultline_trace\":1,...})"
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, options: .strict)
        } catch {
            throw TraceReadError(line: 1, message: "\(missing); \(Self.describe(error))")
        }
        guard let members = value.objectValue else { throw TraceReadError(line: 1, message: missing) }
        guard let versionValue = members["faultline_trace"] else { throw TraceReadError(line: 1, message: missing) }
        guard let version = versionValue.intValue else {
            throw TraceReadError(
                line: 1, message: "\"faultline_trace\" must be an integer, found \(versionValue.typeName)")
        }
        guard version == Int64(TraceHeader.currentFormatVersion) else {
            throw TraceReadError(
                line: 1,
                message:
                    "unsupported trace format version \(version) (this reader reads version \(TraceHeader.currentFormatVersion))"
            )
        }
        var fields = FieldReader(members: members, line: 1)
        let faultline = try fields.optionalString("faultline")
        let created = try fields.optionalString("created")
        let fingerprint = try fields.optionalString("fingerprint")
        fields.members["faultline_trace"] = nil
        return TraceHeader(
            formatVersion: Int(version), faultlineVersion: faultline ?? "", created: created ?? "",
            fingerprint: fingerprint ?? "", attributes: fields.members)
    }

    static func parseEvent(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws(TraceReadError) -> TraceEvent {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, options: .strict)
        } catch {
            throw TraceReadError(line: number, message: Self.describe(error))
        }
        guard let members = value.objectValue else {
            throw TraceReadError(line: number, message: "an event line must be a JSON object, found \(value.typeName)")
        }
        var fields = FieldReader(members: members, line: number)
        let seq = try fields.requiredInteger("seq", minimum: 1)
        let wall = try fields.requiredString("wall")
        let mono = try fields.requiredInteger("mono_ns", minimum: 0)
        let kind = try fields.requiredString("event")
        let connection = try fields.optionalInteger("conn")
        let flow = try fields.optionalInteger("flow")
        return TraceEvent(
            seq: seq, wall: wall, monoNanoseconds: mono, kind: TraceEventKind(rawValue: kind),
            connection: connection.map(ConnectionID.init), flow: flow.map(FlowID.init), attributes: fields.members)
    }

    /// `column 12: expected ':', found '}'`: the byte column, as a line is one line.
    private static func describe(_ error: JSONSyntaxError) -> String {
        switch error.reason {
        case .truncated(let expected):
            "column \(error.offset + 1): line ends where \(expected) was expected (truncated line?)"
        case .invalid(let message): "column \(error.offset + 1): \(message)"
        }
    }

    /// Takes the line's own keys out of an object, checking their types, and leaves the rest.
    private struct FieldReader {
        var members: [String: JSONValue]
        let line: Int

        mutating func requiredString(_ key: String) throws(TraceReadError) -> String {
            guard let string = try optionalString(key) else { throw missing(key) }
            return string
        }

        mutating func optionalString(_ key: String) throws(TraceReadError) -> String? {
            guard let value = members.removeValue(forKey: key) else { return nil }
            guard let string = value.stringValue else { throw wrongType(key, "a string", value) }
            return string
        }

        mutating func requiredInteger(_ key: String, minimum: Int64) throws(TraceReadError) -> UInt64 {
            guard let value = members.removeValue(forKey: key) else { throw missing(key) }
            return try integer(key, value, minimum: minimum)
        }

        mutating func optionalInteger(_ key: String) throws(TraceReadError) -> UInt64? {
            guard let value = members.removeValue(forKey: key) else { return nil }
            return try integer(key, value, minimum: 0)
        }

        private func integer(_ key: String, _ value: JSONValue, minimum: Int64) throws(TraceReadError) -> UInt64 {
            let expected = minimum > 0 ? "a positive integer" : "a non-negative integer"
            guard let integer = value.intValue else { throw wrongType(key, expected, value) }
            guard integer >= minimum else {
                throw TraceReadError(line: line, message: "\"\(key)\" must be \(expected), found \(integer)")
            }
            return UInt64(integer)
        }

        private func missing(_ key: String) -> TraceReadError {
            TraceReadError(line: line, message: "\"\(key)\" is missing")
        }

        private func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> TraceReadError {
            TraceReadError(line: line, message: "\"\(key)\" must be \(expected), found \(value.typeName)")
        }
    }
}
