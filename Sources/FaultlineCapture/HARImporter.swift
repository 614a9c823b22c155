import Foundation

/// Reads a HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/) into a `Capture`.
public enum HARImporter {
    /// True when `bytes` hold a JSON object with a `log` member, not a trace's header line.
    public static func looksLikeHAR(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            first == UInt8(ascii: "{")
        else { return false }
        let firstLine = bytes.prefix { $0 != 0x0A }
        return !String(decoding: firstLine, as: UTF8.self).contains("\"faultline_trace\"")
    }

    /// The capture a HAR file describes.
    public static func capture(fromHAR bytes: [UInt8], source: String) throws(CaptureLoadError) -> Capture {
        throw CaptureLoadError("\(source): HAR import is not written yet")
    }
}
