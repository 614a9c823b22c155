import FaultlineCore
import Testing

@testable import FaultlineConfig

/// Parses and keeps the value only.
func plain(_ text: String) throws -> JSONValue {
    try JSON5.parse(text, file: "t.json5").value
}

func object(_ members: (String, JSONValue)...) -> JSONValue {
    .object(members.map { JSONMember(key: $0.0, value: $0.1) })
}

@Suite struct JSON5SyntaxTests {
    @Test func strictJSONIsASubset() throws {
        let value = try plain(#"{"a": [1, -2.5, 3e2, true, false, null, "x"], "b": {}}"#)
        #expect(
            value
                == object(
                    (
                        "a",
                        .array([
                            .number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null, .string("x"),
                        ])
                    ),
                    ("b", .object([]))))
    }

    @Test func commentsAnywhereTriviaIsAllowed() throws {
        let text = """
            // leading line comment
            /* block
               comment */ { /* in */ a /* before colon */ : // after colon
              1 /* after value */ , // after comma
              b: [ /* empty-ish */ 2 // end
              ] } // trailing
            /* final */
            """
        #expect(try plain(text) == object(("a", .number(1)), ("b", .array([.number(2)]))))
    }

    @Test func trailingCommas() throws {
        #expect(try plain("{a: 1, b: [1, 2,],}") == object(("a", .number(1)), ("b", .array([.number(1), .number(2)]))))
        #expect(try plain("[[],{},]") == .array([.array([]), .object([])]))
    }

    @Test func unquotedKeys() throws {
        let value = try plain(
            #"{$dollar: 1, _under: 2, café: 3, ünïcödé9: 4, null: 5, true: 6, if: 7, \u0061b: 8, a\u0062c: 9}"#)
        #expect(
            value
                == object(
                    ("$dollar", .number(1)), ("_under", .number(2)), ("café", .number(3)), ("ünïcödé9", .number(4)),
                    ("null", .number(5)), ("true", .number(6)), ("if", .number(7)), ("ab", .number(8)),
                    ("abc", .number(9))))
    }

    @Test func singleAndDoubleQuotedStrings() throws {
        #expect(
            try plain(#"['it "works"', "it's", '']"#)
                == .array([.string(#"it "works""#), .string("it's"), .string("")]))
        #expect(
            try plain(#"{'quoted key': 1, "other": 2}"#) == object(("quoted key", .number(1)), ("other", .number(2))))
    }

    @Test func escapes() throws {
        let text = #"'\b\f\n\r\t\v\0|\x41\xe9|\u00e9\u20AC|\uD83D\uDE00|\'\"\\\/|\a\q\ü'"#
        #expect(try plain(text) == .string("\u{08}\u{0C}\n\r\t\u{0B}\u{0}|Aé|é€|😀|'\"\\/|aqü"))
    }

    @Test func lineContinuations() throws {
        #expect(try plain("'one \\\ntwo'") == .string("one two"))
        #expect(try plain("'one \\\r\ntwo'") == .string("one two"))
        #expect(try plain("'one \\\rtwo'") == .string("one two"))
        #expect(try plain("'one \\\u{2028}two'") == .string("one two"))
        // Unescaped LS and PS are allowed inside JSON5 strings.
        #expect(try plain("'a\u{2028}b\u{2029}c'") == .string("a\u{2028}b\u{2029}c"))
    }

    @Test func numbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", 0), ("42", 42), ("+42", 42), ("-7", -7), ("0.25", 0.25), (".5", 0.5), ("5.", 5),
            ("-.5", -0.5), ("+5.", 5), ("1e3", 1000), ("1E-2", 0.01), ("2.5e+2", 250), (".5e1", 5), ("0xFF", 255),
            ("0Xab", 171), ("-0x10", -16), ("+0x1", 1), ("9007199254740993", 9_007_199_254_740_992),
        ]
        for (text, expected) in cases {
            #expect(try plain(text) == .number(expected), "\(text)")
            #expect(try plain("[\(text)]") == .array([.number(expected)]), "[\(text)]")
        }
        #expect(try plain("Infinity") == .number(.infinity))
        #expect(try plain("+Infinity") == .number(.infinity))
        #expect(try plain("-Infinity") == .number(-.infinity))
        guard case .number(let nan) = try plain("[NaN]").elements?.first ?? .null else {
            Issue.record("no NaN"); return
        }
        #expect(nan.isNaN)
        guard case .number(let negativeNaN) = try plain("-NaN") else { Issue.record("no -NaN"); return }
        #expect(negativeNaN.isNaN)
    }

    @Test func whiteSpaceIncludesJSON5Extras() throws {
        let spaces = "\u{FEFF}\t\u{0B}\u{0C} \u{A0}\u{2028}\u{2029}\u{3000}\u{2003}\r\n"
        #expect(
            try plain("\(spaces)[\(spaces)1\(spaces),\(spaces)2\(spaces)]\(spaces)")
                == .array([.number(1), .number(2)]))
    }

    @Test func topLevelScalars() throws {
        #expect(try plain("null") == .null)
        #expect(try plain(" true ") == .bool(true))
        #expect(try plain("'x'") == .string("x"))
    }

    @Test func membersKeepFileOrder() throws {
        #expect(try plain("{z: 1, a: 2, m: 3}") == object(("z", .number(1)), ("a", .number(2)), ("m", .number(3))))
    }
}

extension JSONValue {
    var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
