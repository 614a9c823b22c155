public import FaultlineCapture
import FaultlineTrace
import Foundation

/// Which recorded bodies a capture cut at its body limit.
///
/// `CapturedContent.truncated` compares the bytes kept with the body's length, but a capture
/// writes pseudonyms in place of secrets, so a whole body whose secrets got shorter names looks
/// cut. The capture's header says the limit it cut at (`capture.body_limit`): a body was cut
/// exactly when it was longer than that.
public enum CaptureBodyLimit {
    /// `capture.body_limit` from the header line of the capture at `path`; nil when the file has
    /// no such header (a HAR file), which leaves `CapturedContent.truncated` to decide.
    public static func read(path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // A header line is short; 64 KiB is far more than one needs.
        guard let data = try? handle.read(upToCount: 64 * 1024),
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1).first,
            let header = try? TraceReader.parseHeader(line: String(line)),
            let limit = header.attributes["capture"]?.objectValue?["body_limit"]?.intValue
        else { return nil }
        return Int(exactly: limit)
    }
}

extension CapturedContent {
    /// Whether the capture kept only part of this body, given the capture's body limit (nil:
    /// unknown, trust `truncated`).
    public func wasCut(bodyLimit: Int?) -> Bool {
        guard let bodyLimit else { return truncated }
        return length > Int64(bodyLimit)
    }
}
