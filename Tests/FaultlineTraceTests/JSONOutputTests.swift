import FaultlineCore
import Testing

@testable import FaultlineTrace

private func encoded(_ string: String) -> String {
    var output = JSONOutput()
    output.appendString(string)
    return output.text
}

private func parsed(_ json: String) throws -> JSONValue {
    var json = json
    return try json.withUTF8 { try JSONParser.parse($0) }
}

@Test func stringsAreEscapedForJSONAndStayOnOneLine() throws {
    #expect(encoded("plain") == "\"plain\"")
    #expect(encoded("a\"b\\c") == #""a\"b\\c""#)
    #expect(encoded("\n\r\t\u{8}\u{C}") == #""\n\r\t\b\f""#)
    #expect(encoded("\u{0}\u{1}\u{1F}") == #""\u0000\u0001\u001f""#)
    #expect(encoded("x\u{2028}y\u{2029}z\u{85}") == #""x\u2028y\u2029z\u0085""#)
    // Other non-ASCII passes through as UTF-8, including characters sharing those lead bytes.
    #expect(encoded("é€🦊\u{A0}\u{2030}") == "\"é€🦊\u{A0}\u{2030}\"")
    #expect(encoded("") == "\"\"")
}

@Test func specialCharactersAreEscapedAtEveryPositionOfLongASCIIRuns() throws {
    // The escaper skips eight plain bytes at a time; a special byte must be caught in every lane.
    for special in ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{7F}", "é", "\u{85}", "\u{2028}"] {
        for length in 0..<24 {
            for position in 0...length {
                let string =
                    String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position)
                let json = encoded(string)
                #expect(try parsed(json) == .string(string), "\(json)")
                #expect(!json.contains("\n") && !json.contains("\u{2028}") && !json.contains("\u{85}"))
            }
        }
    }
}

@Test func everyStringRoundTripsThroughTheParser() throws {
    var generator = SystemRandomNumberGenerator()
    let interesting: [Unicode.Scalar] = [
        "\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{7F}", "\u{85}", "\u{2028}", "\u{2029}", "é", "€", "🦊", "a", " ",
    ]
    for _ in 0..<2_000 {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0..<12, using: &generator) {
            if Bool.random(using: &generator) {
                scalars.append(interesting.randomElement(using: &generator)!)
            } else if let scalar = Unicode.Scalar(UInt32.random(in: 0..<0x11_0000, using: &generator)) {
                scalars.append(scalar)
            }
        }
        let string = String(scalars)
        let json = encoded(string)
        #expect(!json.contains("\n") && !json.contains("\r") && !json.contains("\u{2028}") && !json.contains("\u{85}"))
        #expect(try parsed(json) == .string(string))
    }
}

@Test func integersOfEveryLengthAreWrittenInFull() {
    // Digits are written two at a time: odd and even lengths, zeros inside and at the end, and
    // the edges of each length.
    var values: [UInt64] = [0, 5, 9, 10, 11, 99, 100, 101, 909, 1000, 1005, 90_009, 1_000_000_007, .max, .max - 1]
    var power: UInt64 = 1
    for _ in 1...19 {
        power *= 10
        values += [power - 1, power, power + 1, power / 10 * 7 + 3]
    }
    for value in values {
        var output = JSONOutput(capacity: 16)
        output.appendInteger(value)
        #expect(output.text == String(value))
    }
}

@Test func zeroPaddedNumbersHaveTheirWidth() {
    let cases: [(Int, Int, String)] = [
        (0, 1, "0"), (7, 1, "7"), (7, 2, "07"), (42, 3, "042"), (1, 6, "000001"), (999_999, 6, "999999"),
        (120_034, 6, "120034"), (5, 5, "00005"), (10_001, 5, "10001"),
    ]
    for (value, width, expected) in cases {
        var output = JSONOutput(capacity: 16)
        output.appendByte(UInt8(ascii: "<"))
        output.appendZeroPadded(value, width: width)
        output.appendByte(UInt8(ascii: ">"))
        #expect(output.text == "<\(expected)>")
    }
}

@Test func numbersAreWrittenSoTheyReadBackWithTheirType() throws {
    var output = JSONOutput()
    output.appendInteger(Int64.min)
    output.appendByte(UInt8(ascii: " "))
    output.appendInteger(UInt64.max)
    output.appendByte(UInt8(ascii: " "))
    output.appendInteger(Int64(0))
    #expect(output.text == "-9223372036854775808 18446744073709551615 0")
    for value in [0.5, 3.0, -2.25, 1e-5, 1e300, 123456.789] {
        var number = JSONOutput()
        number.appendDouble(value)
        #expect(try parsed(number.text) == .number(value))
    }
    for value in [Double.nan, .infinity, -.infinity] {
        var number = JSONOutput()
        number.appendDouble(value)
        #expect(number.text == "null")
    }
    #expect(try parsed("9223372036854775807") == .int(.max))
    #expect(try parsed("9223372036854775808") == .number(9223372036854775808))
    #expect(try parsed("-0") == .int(0))
}

@Test func parserHandlesEscapesAndNesting() throws {
    #expect(
        try parsed(#" {"a" : [1, -2.5e1, true, false, null, "\u00e9\ud83e\udd8a\/"], "b": {}} "#)
            == .object([
                "a": .array([.int(1), .number(-25), .bool(true), .bool(false), .null, .string("é🦊/")]),
                "b": .object([:]),
            ]))
}

@Test func wallClockFormatsRFC3339WithMicroseconds() {
    var clock = WallClock()
    var output = JSONOutput()
    clock.append(seconds: 0, nanoseconds: 123_456_789, to: &output)
    output.appendByte(UInt8(ascii: " "))
    clock.append(seconds: 1_795_957_492, nanoseconds: 1_000, to: &output)
    output.appendByte(UInt8(ascii: " "))
    // Same second again: the cached prefix must still be right.
    clock.append(seconds: 1_795_957_492, nanoseconds: 999_999_999, to: &output)
    #expect(
        output.text
            == "1970-01-01T00:00:00.123456Z 2026-11-29T13:04:52.000001Z 2026-11-29T13:04:52.999999Z")
}
