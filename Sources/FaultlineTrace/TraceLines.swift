/// Cheap looks at trace lines as the recorder writes them (`{"seq":N,...}`), for code that
/// passes lines on without parsing them.
public enum TraceLines {
    private static let seqPrefix = Array("{\"seq\":".utf8)

    /// The `seq` a line starts with; nil for the header line or anything else.
    public static func seq(of line: some Collection<UInt8>) -> UInt64? {
        guard line.starts(with: seqPrefix) else { return nil }
        var value: UInt64 = 0
        var digits = 0
        for byte in line.dropFirst(seqPrefix.count) {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = shifted + UInt64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// The whole lines of `bytes` up to and including the one with `seq` `last`: later ones
    /// (found from the end) are cut off. Lines without a `seq` are kept where they are.
    public static func prefix(_ bytes: [UInt8], throughSeq last: UInt64) -> ArraySlice<UInt8> {
        var end = bytes.endIndex
        while end > bytes.startIndex {
            let lineEnd = end - 1  // the newline of the last kept line
            let lineStart = bytes[..<lineEnd].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.startIndex
            guard let seq = seq(of: bytes[lineStart..<lineEnd]), seq > last else { break }
            end = lineStart
        }
        return bytes[..<end]
    }

    /// How many lines (newlines) `bytes` holds.
    public static func count(in bytes: some Sequence<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
