public import FaultlineTrace
import Foundation

/// Why a trace file could not be checked: it cannot be read, or a line is malformed.
public enum TraceInputError: Error, CustomStringConvertible {
    /// The file cannot be opened or read; `reason` says why.
    case unreadable(path: String, reason: String)
    /// A line is not what the trace format allows (see `TraceReader`).
    case malformed(path: String, TraceReadError)

    /// `TRACE: reason` or `TRACE:LINE: message`, the way compilers print positions.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .malformed(let path, let error): "\(path):\(error.line): \(error.message)"
        }
    }
}

/// Reads a trace file line by line, so a trace of millions of events can be checked without
/// holding it in memory (`TraceReader.read` holds every event).
///
/// It accepts exactly what `TraceReader` accepts (it parses each line with
/// `TraceReader.parseHeader(line:)` and `parseEvent(line:number:)`): a header on line 1, one
/// event per line, `seq` strictly increasing, CRLF line ends, blank lines only at the end.
public enum TraceFileReader {
    /// Bytes read from the file at a time.
    static let chunkSize = 1 << 20

    /// Reads the trace at `path` (`-` for standard input), handing the header and then each event
    /// to the closures in file order. Throws ``TraceInputError`` at the first unreadable or
    /// malformed line; events before it have been handed over.
    public static func read(
        path: String, header: (TraceHeader) -> Void, event: (TraceEvent) -> Void
    ) throws(TraceInputError) {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(path: path, reason: "no such file")
            }
            guard !isDirectory.boolValue, let opened = FileHandle(forReadingAtPath: path) else {
                throw .unreadable(path: path, reason: isDirectory.boolValue ? "is a directory" : "cannot be opened")
            }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        var splitter = LineSplitter(path: path)
        while true {
            let data: Data
            do {
                data = try handle.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw .unreadable(path: path, reason: "read failed: \(error.localizedDescription)")
            }
            if data.isEmpty { break }
            try splitter.feed(data, header: header, event: event)
        }
        try splitter.finish(header: header, event: event)
    }

    /// Checks the trace file at `path` against `contract`, streaming it.
    public static func check(path: String, contract: Contract = .default) throws(TraceInputError) -> ContractReport {
        var checker = ContractChecker(contract: contract)
        try read(path: path, header: { checker.consume(header: $0) }, event: { checker.consume($0) })
        return checker.finish()
    }
}

/// Cuts bytes into lines and parses them, keeping `TraceReader`'s rules.
private struct LineSplitter {
    let path: String
    private var partial: [UInt8] = []
    private var lineNumber = 0
    private var firstBlankLine: Int?
    private var previousSeq: UInt64?
    private var sawHeader = false

    init(path: String) { self.path = path }

    mutating func feed(
        _ data: Data, header: (TraceHeader) -> Void, event: (TraceEvent) -> Void
    ) throws(TraceInputError) {
        let result: Result<Void, TraceInputError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            do throws(TraceInputError) {
                while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    if partial.isEmpty {
                        try line(UnsafeBufferPointer(rebasing: bytes[start..<newline]), header, event)
                    } else {
                        partial.append(contentsOf: bytes[start..<newline])
                        let whole = partial
                        partial.removeAll(keepingCapacity: true)
                        try whole.withUnsafeBufferPointer { buffer throws(TraceInputError) in
                            try line(buffer, header, event)
                        }
                    }
                    start = newline + 1
                }
                partial.append(contentsOf: bytes[start...])
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    mutating func finish(header: (TraceHeader) -> Void, event: (TraceEvent) -> Void) throws(TraceInputError) {
        if !partial.isEmpty {
            let whole = partial
            partial = []
            try whole.withUnsafeBufferPointer { buffer throws(TraceInputError) in try line(buffer, header, event) }
        }
        if !sawHeader {
            throw .malformed(path: path, TraceReadError(line: 1, message: "empty trace: the header line is missing"))
        }
    }

    private mutating func line(
        _ raw: UnsafeBufferPointer<UInt8>, _ header: (TraceHeader) -> Void, _ event: (TraceEvent) -> Void
    ) throws(TraceInputError) {
        lineNumber += 1
        var bytes = raw
        if bytes.last == UInt8(ascii: "\r") { bytes = UnsafeBufferPointer(rebasing: bytes[..<(bytes.count - 1)]) }
        let blank = bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        if blank {
            if firstBlankLine == nil { firstBlankLine = lineNumber }
            return
        }
        if let blankLine = firstBlankLine {
            let message =
                blankLine == 1 ? "empty trace: the header line is missing" : "blank line in the middle of the trace"
            throw .malformed(path: path, TraceReadError(line: blankLine, message: message))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(TraceReadError) {
            if lineNumber == 1 {
                header(try TraceReader.parseHeader(line: text))
                sawHeader = true
                return
            }
            let parsed = try TraceReader.parseEvent(line: text, number: lineNumber)
            if let previous = previousSeq, parsed.seq <= previous {
                throw TraceReadError(
                    line: lineNumber, message: "seq \(parsed.seq) does not follow seq \(previous) of the line before")
            }
            previousSeq = parsed.seq
            event(parsed)
        } catch {
            throw .malformed(path: path, error)
        }
    }
}
