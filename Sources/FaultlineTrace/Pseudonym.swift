/// A capture's pseudonym, `flp.KIND.LINEAGE.N` (`PseudonymRegistry` names them): found in text so
/// that a replay can swap it for a live value, told apart from other strings when answers are
/// compared, and accepted as redacted by the checker. The one reading of the grammar.
///
/// The grammar is the registry's: `flp.`, a kind of lowercase letters, digits and `-`, `.`, a
/// lineage of letters and digits, `.`, an ordinal. A match must stand alone: the byte before it
/// and the byte after it are not letters, digits, `.`, `-` or `_`, so `flp.access.L1.1` is not
/// found inside `flp.access.L1.12` or `xflp.access.L1.1`.
public enum Pseudonym {
    private static let prefix = Array(PseudonymRegistry.prefix.utf8)

    /// The kind a pseudonym names (`refresh` for `flp.refresh.L1.2`); nil for anything else.
    public static func kind(of text: String) -> String? {
        guard isPseudonym(text) else { return nil }
        return String(text.split(separator: ".")[1])
    }

    /// Whether all of `text` is one pseudonym.
    public static func isPseudonym(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return ranges(in: bytes) == [0..<bytes.count]
    }

    /// Where pseudonyms stand in `bytes`, in order, not overlapping.
    public static func ranges(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index + prefix.count <= bytes.count {
            guard bytes[index] == prefix[0], bytes[index..<index + prefix.count].elementsEqual(prefix),
                index == 0 || !isWordByte(bytes[index - 1]), let end = end(of: bytes, after: index + prefix.count)
            else {
                index += 1
                continue
            }
            found.append(index..<end)
            index = end
        }
        return found
    }

    /// The pseudonyms of `text`, in order (repeats included).
    public static func occurrences(in text: String) -> [String] {
        let bytes = Array(text.utf8)
        return ranges(in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    /// The end of `KIND.LINEAGE.N` starting at `start`, when it is one and nothing word-like follows.
    private static func end(of bytes: [UInt8], after start: Int) -> Int? {
        var index = start
        func run(_ allowed: (UInt8) -> Bool) -> Bool {
            let first = index
            while index < bytes.count, allowed(bytes[index]) { index += 1 }
            return index > first
        }
        func dot() -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: ".") else { return false }
            index += 1
            return true
        }
        guard run(isKindByte), dot(), run(isAlphanumeric), dot(), run(isDigit) else { return nil }
        // A trailing `.` ends a sentence or a field; anything word-like means a longer token.
        if index < bytes.count, isWordByte(bytes[index]), bytes[index] != UInt8(ascii: ".") { return nil }
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), isAlphanumeric(bytes[index + 1]) { return nil }
        return index
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    private static func isKindByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "-")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
