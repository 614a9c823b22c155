import FaultlineCore
import Testing

@Test func fnvMatchesTheReferenceVectors() {
    // From the FNV reference test suite (draft-eastlake-fnv, FNV-1a 64-bit).
    #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
    #expect(FNV1a.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
    #expect(FNV1a.hash(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    #expect(FNV1a.hex(Array("a".utf8)) == "af63dc4c8601ec8c")
    #expect(FNV1a.hex([UInt8]()).count == 16)
}
