import FaultlineCore
import Testing

@testable import FaultlineConfig

/// The error a parse throws, or nil when it succeeds.
func parseError(_ text: String) -> ConfigError? {
    do {
        _ = try JSON5.parse(text, file: "f.json5")
        return nil
    } catch {
        return error
    }
}

@Suite struct JSON5ErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let input: String
        let line: Int
        let column: Int
        let message: String
        var testDescription: String { input.debugDescription }
    }

    static let cases: [Case] = [
        Case(input: "", line: 1, column: 1, message: "expected a value, found the end of the file"),
        Case(
            input: "{a: 1 b: 2}", line: 1, column: 7, message: "expected ',' or '}' after the value of 'a', found 'b'"),
        Case(input: "{a 1}", line: 1, column: 4, message: "expected ':' after the key 'a', found '1'"),
        Case(input: #"{"a": }"#, line: 1, column: 7, message: "expected a value for 'a', found '}'"),
        Case(input: "{,}", line: 1, column: 2, message: "expected a key or '}', found ','"),
        Case(input: "{1: 2}", line: 1, column: 2, message: "expected a key or '}', found '1'"),
        Case(input: "[1,,2]", line: 1, column: 4, message: "expected an array element or ']', found ','"),
        Case(
            input: "[1, 2", line: 1, column: 6,
            message:
                "expected ',' or ']' after an array element, found the end of the file (the array opened at 1:1 is not closed)"
        ),
        Case(
            input: "{\n  a: {b: 1,\n", line: 3, column: 1,
            message: "expected a key or '}', found the end of the file (the object opened at 2:6 is not closed)"),
        Case(
            input: "{method: GET}", line: 1, column: 10,
            message: #"expected a value for 'method', found 'GET' (a string needs quotes: "GET")"#),
        Case(
            input: "{a: 1} x", line: 1, column: 8,
            message: "expected the end of the file after the top-level value, found 'x'"),
        Case(input: "{a: 1, a: 2}", line: 1, column: 8, message: "duplicate key 'a' (first defined at 1:2)"),
        Case(
            input: "{\n  'a': 1,\n  \"a\": 2,\n}", line: 3, column: 3,
            message: "duplicate key 'a' (first defined at 2:3)"),
        Case(
            input: #"["abc"#, line: 1, column: 2,
            message: #"unterminated string: no closing " before the end of the file"#),
        Case(
            input: "'abc", line: 1, column: 1, message: "unterminated string: no closing ' before the end of the file"),
        Case(
            input: "[\"ab\ncd\"]", line: 1, column: 5,
            message:
                "line break inside a string (close the string first, write \\n, or end the line with \\ to continue it)"
        ),
        Case(
            input: "[1] /* open", line: 1, column: 5,
            message: "unterminated block comment: no '*/' before the end of the file"),
        Case(input: "{a: 1 / 2}", line: 1, column: 7, message: "expected '//' or '/*' to start a comment after '/'"),
        Case(input: "{a: 01}", line: 1, column: 6, message: "a number must not have leading zeros"),
        Case(input: "{a: 0x}", line: 1, column: 7, message: "expected a hex digit after '0x', found '}'"),
        Case(input: "{a: 1e}", line: 1, column: 7, message: "expected a digit in the exponent, found '}'"),
        Case(input: "{a: 12px}", line: 1, column: 7, message: "unexpected 'p' after a number"),
        Case(input: "[1.2.3]", line: 1, column: 5, message: "unexpected '.' after a number"),
        Case(input: "[-]", line: 1, column: 3, message: "expected a digit, found ']'"),
        Case(input: "[.]", line: 1, column: 3, message: "expected a digit, found ']'"),
        Case(input: "-Inf", line: 1, column: 2, message: "expected a number, found 'Inf'"),
        Case(input: "[1e999]", line: 1, column: 2, message: "number is too large for a 64-bit floating-point value"),
        Case(input: #"["\u12"]"#, line: 1, column: 7, message: #"expected 4 hex digits after '\u', found '"'"#),
        Case(input: #"'\xZ1'"#, line: 1, column: 4, message: #"expected 2 hex digits after '\x', found 'Z'"#),
        Case(
            input: #"['ok', '\uD83D']"#, line: 1, column: 9,
            message: #"'\uD83D' is a UTF-16 high surrogate without the '\uDC00'...'\uDFFF' that must follow it"#),
        Case(input: #"'\uDE00'"#, line: 1, column: 2, message: #"'\uDE00' is a lone UTF-16 low surrogate"#),
        Case(
            input: #"'\uD83D\u0041'"#, line: 1, column: 8,
            message: #"'\u0041' is not a UTF-16 low surrogate, which must follow '\uD83D'"#),
        Case(input: #"'\1'"#, line: 1, column: 2, message: #"'\1' is not a valid escape (JSON5 has no octal escapes)"#),
        Case(
            input: #"'\01'"#, line: 1, column: 2,
            message: #"'\0' must not be followed by a digit (JSON5 has no octal escapes)"#),
        Case(input: #"{a\x: 1}"#, line: 1, column: 3, message: #"only '\uXXXX' escapes may appear in an unquoted key"#),
        Case(
            input: #"{\u0031a: 1}"#, line: 1, column: 2,
            message: #"'\u0031' is not a character allowed in an unquoted key; quote the key"#),
        // Columns count Unicode scalars: "é" and "😀" are one column each.
        Case(
            input: "{\n  é: '😀',\n  ü: 1 2\n}", line: 3, column: 8,
            message: "expected ',' or '}' after the value of 'ü', found '2'"),
        // CR LF, lone CR, LS and tab: each line break starts a new line, a tab is one column.
        Case(input: "{\r\n\ta: 1,\r  b}", line: 3, column: 4, message: "expected ':' after the key 'b', found '}'"),
        Case(
            input: "[1,\u{2028}2,\u{2029} x]", line: 3, column: 2,
            message: #"expected an array element or ']', found 'x' (a string needs quotes: "x")"#),
        Case(
            input: "['a\u{2028}b', x]", line: 2, column: 5,
            message: #"expected an array element or ']', found 'x' (a string needs quotes: "x")"#),
        Case(input: "[\u{7}]", line: 1, column: 2, message: "expected an array element or ']', found U+0007"),
        Case(
            input: "{a: 1\n", line: 2, column: 1,
            message:
                "expected ',' or '}' after the value of 'a', found the end of the file (the object opened at 1:1 is not closed)"
        ),
    ]

    @Test(arguments: cases)
    func errorPosition(_ testCase: Case) {
        let error = parseError(testCase.input)
        #expect(
            error
                == ConfigError(
                    testCase.message, at: SourceLocation(file: "f.json5", line: testCase.line, column: testCase.column))
        )
    }

    @Test func descriptionIsFileLineColumnMessage() {
        let error = parseError("{a 1}")
        #expect(error?.description == "f.json5:1:4: expected ':' after the key 'a', found '1'")
    }

    @Test func invalidUTF8IsReportedAtTheByte() throws {
        // {\n a: 'é<FF>'}
        let bytes: [UInt8] = [0x7B, 0x0A, 0x20, 0x61, 0x3A, 0x20, 0x27, 0xC3, 0xA9, 0xFF, 0x27, 0x7D]
        #expect(
            throws: ConfigError(
                "invalid UTF-8 (byte 0xFF); the file must be UTF-8 text",
                at: SourceLocation(file: "b", line: 2, column: 7))
        ) {
            try JSON5.parse(bytes, file: "b")
        }
        // Overlong encodings, encoded surrogates, truncated sequences and stray continuation bytes.
        for bad: [UInt8] in [
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
        ] {
            #expect(throws: ConfigError.self, "\(bad)") { try JSON5.parse([0x27] + bad + [0x27], file: "b") }
        }
        // Valid multi-byte sequences of each length.
        #expect(try JSON5.parse(Array("'é€😀'".utf8), file: "b").value == .string("é€😀"))
    }

    @Test func nestingIsBounded() throws {
        let depth = JSON5.defaultMaxDepth
        let deepest = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try JSON5.parse(deepest, file: "d") }
        let tooDeep = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        #expect(
            parseError(tooDeep)
                == ConfigError(
                    "arrays and objects are nested more than \(depth) levels deep",
                    at: SourceLocation(file: "f.json5", line: 1, column: depth + 1)))
        // Objects count too, and the bound can be lowered.
        #expect(throws: ConfigError.self) { try JSON5.parse("{a: {b: [1]}}", file: "d", maxDepth: 2) }
        #expect(throws: Never.self) { try JSON5.parse("{a: {b: 1}}", file: "d", maxDepth: 2) }
        // A hostile body far past the bound fails cleanly instead of exhausting the stack.
        #expect(throws: ConfigError.self) { try JSON5.parse(String(repeating: "[", count: 1_000_000), file: "d") }
    }

    @Test func duplicateKeysInLargeObjects() {
        // Objects past 16 members switch from a scan to a dictionary; both must see duplicates.
        func text(_ keys: [String]) -> String { "{" + keys.map { "\($0): 1" }.joined(separator: ",") + "}" }
        let keys = (1...20).map { "k\($0)" }
        #expect(parseError(text(keys)) == nil)
        for (duplicate, of) in [(5, 3), (17, 2), (17, 16), (20, 18), (16, 1)] {
            var withDuplicate = keys
            withDuplicate[duplicate - 1] = keys[of - 1]
            let error = parseError(text(withDuplicate))
            // Each member "kN: 1," is 6 + digits long; recompute columns from the text.
            let rendered = text(withDuplicate)
            let prefix = withDuplicate[..<(duplicate - 1)].map { "\($0): 1," }.joined()
            let firstPrefix = withDuplicate[..<(of - 1)].map { "\($0): 1," }.joined()
            #expect(
                error?.message == "duplicate key '\(keys[of - 1])' (first defined at 1:\(firstPrefix.count + 2))",
                "\(rendered)")
            #expect(error?.location.column == prefix.count + 2)
        }
    }

    @Test func nodesKnowTheirPositions() throws {
        let text = "// header\n{\n  first: 'x',\n  \"second\": [10, {deep: true}],\n}"
        let root = try JSON5.parse(text, file: "p")
        #expect(root.location == SourceLocation(file: "p", line: 2, column: 1))
        let members = try #require(root.members)
        #expect(members[0].keyLocation == SourceLocation(file: "p", line: 3, column: 3))
        #expect(members[0].value.location == SourceLocation(file: "p", line: 3, column: 10))
        #expect(members[1].keyLocation == SourceLocation(file: "p", line: 4, column: 3))
        let array = try #require(members[1].value.elements)
        #expect(members[1].value.location.column == 13)
        #expect(array[0].location.column == 14)
        #expect(array[1].location.column == 18)
        let deep = try #require(array[1].members?.first)
        #expect(deep.keyLocation.column == 19)
        #expect(deep.value.location == SourceLocation(file: "p", line: 4, column: 25))
    }
}
