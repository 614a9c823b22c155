import FaultlineCore
import Testing

@testable import FaultlineHTTP1

@Suite struct ASCIITests {
    @Test func tokenMasksMatchTheGrammar() {
        // RFC 9110 §5.6.2 tchar, spelled out independently of the masks.
        let tchar = Set(bytes("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        for byte in UInt8.min...UInt8.max {
            #expect(ASCII.isTokenChar(byte) == tchar.contains(byte), "byte \(byte)")
        }
    }

    @Test func fieldValueBytes() {
        for byte in UInt8.min...UInt8.max {
            let allowed = byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80
            #expect(ASCII.isFieldValueByte(byte) == allowed, "byte \(byte)")
        }
    }

    @Test func visibleAndHex() {
        for byte in UInt8.min...UInt8.max {
            #expect(ASCII.isVisible(byte) == (0x21...0x7E).contains(byte))
            let hex = Array("0123456789abcdef".utf8).firstIndex(of: ASCII.lowercased(byte))
            #expect(HexDigit.value(byte) == hex.map { UInt8($0) }, "byte \(byte)")
        }
    }
}
