/// One pass over bytes that swaps the runs standing for something else (a secret for its
/// pseudonym, a fresh token for the recorded one) and copies nothing when there is none.
extension RandomAccessCollection where Element == UInt8, Index == Int {
    /// These bytes with each run that `match` recognises replaced by the UTF-8 of the text it
    /// gives; nil when it recognises none, so the caller keeps its own bytes without a copy.
    ///
    /// `match` is asked, left to right, at each index from which at least `minimumLength` bytes
    /// remain, and returns the length of the run starting there and its replacement (or nil).
    /// Scanning goes on after a replaced run, so replacements never overlap.
    public func replacingRuns(
        minimumLength: Int, _ match: (Int) -> (length: Int, replacement: String)?
    ) -> [UInt8]? {
        var output: [UInt8]?
        var copied = startIndex
        var index = startIndex
        while index + minimumLength <= endIndex {
            if let (length, replacement) = match(index) {
                if output == nil { output = [] }
                output!.append(contentsOf: self[copied..<index])
                output!.append(contentsOf: replacement.utf8)
                index += length
                copied = index
            } else {
                index += 1
            }
        }
        guard var result = output else { return nil }
        result.append(contentsOf: self[copied...])
        return result
    }
}
