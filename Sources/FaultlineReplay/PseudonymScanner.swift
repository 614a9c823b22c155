/// Finds a capture's pseudonyms (`flp.KIND.LINEAGE.N`, written by FaultlineTrace's
/// `PseudonymRegistry`) in text, so a replay can hand out fresh values in their place.
enum PseudonymScanner {
    /// Every pseudonym in `text`, in order of appearance (repeats included).
    static func pseudonyms(in text: some Collection<UInt8>) -> [String] {
        var found: [String] = []
        let bytes = Array(text)
        var index = 0
        while index + 4 <= bytes.count {
            if bytes[index] == UInt8(ascii: "f"), bytes[index + 1] == UInt8(ascii: "l"), bytes[index + 2] == UInt8(ascii: "p"),
                bytes[index + 3] == UInt8(ascii: "."), index == 0 || !isNameByte(bytes[index - 1]),
                let end = pseudonymEnd(bytes, from: index + 4)
            {
                found.append(String(decoding: bytes[index..<end], as: UTF8.self))
                index = end
            } else {
                index += 1
            }
        }
        return found
    }

    /// After `flp.`: KIND (`[a-z0-9-]+`) `.` LINEAGE (`[A-Za-z0-9]+`) `.` N (`[0-9]+`), not followed
    /// by another name character.
    private static func pseudonymEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        func run(_ allowed: (UInt8) -> Bool) -> Bool {
            let begin = index
            while index < bytes.count, allowed(bytes[index]) { index += 1 }
            return index > begin
        }
        guard run({ isLowerOrDigit($0) || $0 == UInt8(ascii: "-") }), index < bytes.count, bytes[index] == UInt8(ascii: ".") else { return nil }
        index += 1
        guard run({ isLowerOrDigit($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }), index < bytes.count,
            bytes[index] == UInt8(ascii: ".")
        else { return nil }
        index += 1
        guard run({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        if index < bytes.count, isNameByte(bytes[index]) { return nil }
        return index
    }

    private static func isLowerOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isLowerOrDigit(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-")
    }
}
