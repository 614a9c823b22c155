/// The escape sequences of a JSON string (RFC 8259 §7), decoded in one place for the package's
/// JSON readers: `JSONParser` (trace lines, bodies, HAR files), the body redactor and the JSON5
/// reader of rule files (which adds JSON5's own escapes around it). They differ only in what a
/// lone surrogate means to them, and in the words of their errors.
package enum JSONEscape {
    /// Why an escape does not decode.
    package enum Failure: Error, Equatable, Sendable {
        /// The input ends inside the escape: `expected` names what is missing ("an escape
        /// sequence", "four hex digits after \u").
        case truncated(expected: String)
        /// A backslash followed by a letter JSON does not define, at `at`.
        case unknownLetter(UInt8, at: Int)
        /// A `\u` whose four digits are not all hex: `at` is the first byte that is not.
        case notHex(at: Int)
        /// A UTF-16 surrogate without its other half (refused by `.refuse`): a low one, a high one
        /// with no `\u` after it, or a high one `followedBy` a `\u` unit that is not a low one.
        case unpairedSurrogate(UInt32, followedBy: UInt32?)
    }

    /// What a surrogate without its other half reads as.
    package enum LoneSurrogates: Sendable {
        /// An error: the string does not read.
        case refuse
        /// U+FFFD, and the rest of the string reads on (what a body matcher wants: one odd
        /// character should not hide the whole body from the rules).
        case replace
    }

    /// Decodes the escape whose backslash is at `index`, appends its UTF-8 to `output` and moves
    /// `index` past it; on a failure `index` is where reading stopped (the end of the input, or
    /// just past the surrogate that has no other half). A high surrogate takes the `\u` low
    /// surrogate that follows it: a character outside the Basic Multilingual Plane is written as
    /// the pair (§7).
    package static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, into output: inout [UInt8],
        loneSurrogates: LoneSurrogates
    ) -> Failure? {
        index += 1
        guard index < bytes.count else { return .truncated(expected: "an escape sequence") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(letter)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let first: UInt32
            switch hexQuad(bytes, at: &index) {
            case .success(let value): first = value
            case .failure(let failure): return failure
            }
            let scalar: UInt32
            switch first {
            case 0xD800..<0xDC00:
                let afterFirst = index
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    index += 2
                    switch hexQuad(bytes, at: &index) {
                    case .success(let low) where (0xDC00..<0xE000).contains(low):
                        scalar = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
                    case .success(let other):
                        guard loneSurrogates == .replace else { return .unpairedSurrogate(first, followedBy: other) }
                        index = afterFirst
                        scalar = 0xFFFD
                    case .failure(let failure):
                        guard loneSurrogates == .replace else { return failure }
                        index = afterFirst  // the next escape is read, and refused, on its own
                        scalar = 0xFFFD
                    }
                } else {
                    guard loneSurrogates == .replace else { return .unpairedSurrogate(first, followedBy: nil) }
                    scalar = 0xFFFD
                }
            case 0xDC00..<0xE000:
                guard loneSurrogates == .replace else { return .unpairedSurrogate(first, followedBy: nil) }
                scalar = 0xFFFD
            default:
                scalar = first
            }
            // Every value left is a scalar: surrogates were joined or replaced above.
            output.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            return .unknownLetter(letter, at: index - 1)
        }
        return nil
    }

    /// The four hex digits at `index`, which moves past them.
    private static func hexQuad(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Result<UInt32, Failure> {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { return .failure(.truncated(expected: "four hex digits after \\u")) }
            guard let digit = HexDigit.value(bytes[index]) else { return .failure(.notHex(at: index)) }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return .success(value)
    }
}
