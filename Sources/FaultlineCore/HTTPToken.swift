/// The `token` of RFC 9110 §5.6.2, which methods, header names, auth-schemes and cookie names are
/// made of: the one definition the codec, the trace, the rules and the contract files check
/// against.
package enum HTTPToken {
    /// True for a `tchar`: `"!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" /
    /// "`" / "|" / "~" / DIGIT / ALPHA`. One bit per byte, in two 64-bit masks (checked against
    /// the grammar in FaultlineHTTP1's tests); inlinable because the codec calls it per byte.
    @inlinable
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0x03FF_6CFA_0000_0000  // bytes 0..<64
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // bytes 64..<128
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 == 1 }
        return false
    }

    /// True when `text` is a non-empty token.
    package static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }
}
