import FaultlineCore
import Testing

/// The one JSON parser: RFC 8259 strictly, number text and member order kept, errors with their
/// position, and the options that tell trace lines from wire data.
@Suite struct JSONParserTests {
    private func strict(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8), options: .strict)
    }

    private func error(_ text: String, options: JSONParser.Options = .strict) -> JSONSyntaxError? {
        do {
            _ = try JSONParser.parse(Array(text.utf8), options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test func numbersKeepTheirText() throws {
        for text in ["1", "1.0", "1e3", "1E+03", "-0", "0.50", "12345678901234567890123", "-2.5e-7"] {
            guard case .number(let number) = try strict(text) else {
                Issue.record("\(text) is not a number")
                continue
            }
            #expect(number.text == text)
            #expect(try strict("[\(text)]").jsonText() == "[\(text)]", "round trip of \(text)")
        }
        #expect(try strict("9223372036854775807").intValue == .max)
        #expect(try strict("9223372036854775808").intValue == nil, "beyond Int64")
        #expect(try strict("1.0").intValue == nil, "an integer is written as one")
        #expect(try strict("1e3").doubleValue == 1000)
    }

    @Test func objectsKeepMemberOrder() throws {
        let value = try strict(#"{"z": 1, "a": [true, null], "m": {"y": "", "b": 2}}"#)
        #expect(value.members?.map(\.key) == ["z", "a", "m"])
        #expect(value["m"]?.members?.map(\.key) == ["y", "b"])
        #expect(value.jsonText() == #"{"z":1,"a":[true,null],"m":{"y":"","b":2}}"#)
    }

    @Test func errorsSayWhereWithLineAndColumn() {
        let broken = error("{\n  \"a\": 1,\n  \"é\": tru\n}")
        #expect(broken?.line == 3)
        #expect(broken?.column == 11, "columns count characters, not bytes")
        #expect(broken?.message == "expected 'true', found byte 0xA")
        #expect(error("[1, 2")?.reason == .truncated(expected: "',' or ']'"))
        #expect(error("[1, 2")?.offset == 5)
        #expect(error("[1, 2")?.description == "1:6: the text ends where ',' or ']' was expected")
        #expect(error("{\"a\" 1}")?.message == "expected ':', found '1'")
        #expect(error("[1,]")?.message == "expected a value, found ']'")
        #expect(error("01")?.message == "unexpected '1' after the end of the JSON value")
        #expect(error("\"a\u{1}\"")?.message == "control character byte 0x1 in a string must be escaped")
        #expect(error("[1.]")?.message == "expected a digit after '.', found ']'")
    }

    @Test(arguments: [
        "", " ", "{", "[", "\"", "tru", "nul", "-", "1.", "1e", "1e+", "{\"a\"", "{\"a\":", "{\"a\":1", "[1,",
        "\"\\", "\"\\u12", "\"abc",
    ])
    func everyTruncationIsAnErrorAtTheEnd(_ text: String) {
        let found = error(text)
        #expect(found?.offset == text.utf8.count, "\(text)")
        if case .truncated = found?.reason {} else { Issue.record("\(text): \(String(describing: found))") }
    }

    @Test func duplicateKeysAreRefusedOrTheLastWins() throws {
        #expect(error(#"{"a": 1, "a": 2}"#)?.message == "duplicate key \"a\"")
        #expect(error(#"{"a": 1, "a": 2}"#)?.offset == 9)
        let lenient = try JSONParser.parse(Array(#"{"a": 1, "b": 2, "a": 3}"#.utf8), options: .lenient)
        #expect(lenient.members?.map(\.key) == ["a", "b"])
        #expect(lenient["a"] == .int(3))
        // Past the scan limit the set takes over; the answer is the same.
        let many = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        #expect(error("{\(many), \"k39\": 0}")?.message == "duplicate key \"k39\"")
        #expect(try strict("{\(many)}").members?.count == 40)
    }

    @Test func stringsDecodeThroughJSONEscape() throws {
        #expect(try strict(#""a\"b\\c\/d\n\u00e9\ud83e\udd8a""#) == .string("a\"b\\c/d\né🦊"))
        #expect(error(#""\ud800x""#)?.message == "unpaired surrogate in \\u escape")
        #expect(error(#""\q""#)?.message == "invalid escape '\\q' in a string")
        let lenient = try JSONParser.parse(Array(#""\ud800x""#.utf8), options: .lenient)
        #expect(lenient == .string("\u{FFFD}x"))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22], options: .strict) }
        #expect(try JSONParser.parse([0x22, 0xFF, 0x22], options: .lenient) == .string("\u{FFFD}"))
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(error(deep)?.message == "nested deeper than 64 levels")
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(error(fine) == nil)
        let hostile = String(repeating: "[", count: 100_000)
        #expect(error(hostile, options: .lenient)?.message == "nested deeper than 256 levels")
    }

    @Test func byteOrderMarkAndHugeNumbersFollowTheOptions() throws {
        let marked: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[]".utf8)
        #expect(try JSONParser.parse(marked, options: .lenient) == .array([]))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(marked, options: .strict) }
        #expect(error("1e999")?.message == "number 1e999 is out of range")
        #expect(try JSONParser.parse(Array("1e999".utf8), options: .lenient).jsonText() == "null")
    }

    @Test func bodiesParseToNilWhenNotJSON() {
        #expect(JSONValue.parse(Array("{\"a\": [1, 2]}".utf8)) != nil)
        #expect(JSONValue.parse(Array("<html>".utf8)) == nil)
        #expect(JSONValue.parse([]) == nil)
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Array("{".utf8)) }
    }
}
