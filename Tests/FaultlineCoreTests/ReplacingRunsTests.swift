import FaultlineCore
import Testing

/// Replaces each `ab` with `X`.
private func abToX(_ bytes: [UInt8]) -> [UInt8]? {
    bytes.replacingRuns(minimumLength: 2) { index in
        bytes[index] == UInt8(ascii: "a") && bytes[index + 1] == UInt8(ascii: "b") ? (2, "X") : nil
    }
}

@Test func replacingRunsSwapsEveryMatchAndKeepsTheRest() {
    #expect(abToX(Array("ab-ab-aab".utf8)) == Array("X-X-aX".utf8))
    #expect(abToX(Array("abab".utf8)) == Array("XX".utf8))
}

@Test func replacingRunsIsNilWithoutAMatch() {
    #expect(abToX(Array("a-b-ba".utf8)) == nil)
    #expect(abToX([]) == nil)
    #expect(abToX(Array("a".utf8)) == nil)
}

@Test func replacingRunsAsksOnlyWhereARunFits() {
    let bytes = Array("abcde".utf8)
    var asked: [Int] = []
    _ = bytes.replacingRuns(minimumLength: 3) { index in
        asked.append(index)
        return nil
    }
    #expect(asked == [0, 1, 2])
}
