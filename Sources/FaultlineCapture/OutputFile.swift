import FaultlineTrace

/// Writes a file this module makes (a capture, a HAR) in one go.
///
/// A file that holds raw secrets is created with mode 0600, and made so even when it existed with
/// another mode, as `faultline run --capture-secrets keep` does with its capture; any other file
/// is created with mode 0644 (FaultlineTrace's `TraceFile`, the trace writer's own way).
public enum OutputFile {
    /// Creates or truncates `path` and writes `bytes`; `holdsRawSecrets` makes it private.
    public static func write(_ bytes: [UInt8], to path: String, holdsRawSecrets: Bool) throws(CaptureWriteError) {
        do {
            try TraceFile.write(bytes, to: path, holdsRawSecrets: holdsRawSecrets)
        } catch {
            throw CaptureWriteError(error.message)
        }
    }
}
