/// Replaces recorded secrets in a recorded response by the fresh values a replay hands out.
enum CredentialSubstitution {
    /// `bytes` with every occurrence of each of `secrets` replaced by `fresh(secret)`; longer
    /// secrets first where two start at the same place.
    static func replace(_ secrets: [String], in bytes: [UInt8], fresh: (String) -> String) -> [UInt8] {
        guard !secrets.isEmpty, !bytes.isEmpty else { return bytes }
        let needles = secrets.map { (text: $0, bytes: Array($0.utf8)) }.filter { !$0.bytes.isEmpty }.sorted {
            $0.bytes.count > $1.bytes.count
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        outer: while index < bytes.count {
            for needle in needles where needle.bytes[0] == bytes[index] && index + needle.bytes.count <= bytes.count {
                if bytes[index..<(index + needle.bytes.count)].elementsEqual(needle.bytes) {
                    output.append(contentsOf: fresh(needle.text).utf8)
                    index += needle.bytes.count
                    continue outer
                }
            }
            output.append(bytes[index])
            index += 1
        }
        return output
    }
}
