/// Writing a whole file the way the recorder writes a trace: created or truncated, with mode
/// 0600 when it holds raw secrets (made so even when it existed with another mode), written in
/// full or not at all (`TraceSink`). For files made in one go from a trace: a capture written from
/// a HAR, a HAR exported from a capture.
public enum TraceFile {
    /// Creates or truncates `path` and writes `bytes`; `holdsRawSecrets` makes it private.
    public static func write(_ bytes: [UInt8], to path: String, holdsRawSecrets: Bool) throws(TraceRecorderError) {
        var sink = try TraceSink.openFile(path: path, privateMode: holdsRawSecrets, failure: "cannot write")
        defer { sink.closeDescriptor() }
        if let failure = bytes.withUnsafeBufferPointer({ sink.writeAll($0) }) { throw TraceRecorderError(failure) }
    }
}
