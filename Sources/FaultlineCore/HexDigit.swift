/// Hexadecimal digits, as chunk sizes, percent-encoding and JSON `\u` escapes spell them: the
/// one definition the codec, the parsers and the form and query decoders use.
package enum HexDigit {
    /// The value of `byte` as a hex digit (`0-9`, `a-f`, `A-F`), or nil. Inlinable: the codec
    /// calls it per byte of a chunk size.
    @inlinable
    package static func value(_ byte: UInt8) -> UInt8? {
        if byte &- 0x30 < 10 { return byte &- 0x30 }
        let lower = byte | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return nil
    }
}
