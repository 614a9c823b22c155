import FaultlineCore
import Testing

@testable import FaultlineConfig

@Suite struct JSONTextTests {
    @Test func compactText() {
        let value = object(
            ("status", .number(401)), ("ratio", .number(0.25)), ("neg", .number(-3)), ("big", .number(1e21)),
            ("tiny", .number(1e-7)), ("list", .array([.bool(true), .null, .array([]), .object([])])),
            ("text", .string("a\"b\\c\n\t\r\u{08}\u{0C}\u{01}\u{1F}é😀/")))
        #expect(
            value.jsonText()
                == #"{"status":401,"ratio":0.25,"neg":-3,"big":1e+21,"tiny":1e-07,"list":[true,null,[],{}],"text":"a\"b\\c\n\t\r\b\f\u0001\u001fé😀/"}"#
        )
    }

    @Test func bytesMatchText() {
        let value = object(("é", .array([.string("\u{7F}\u{1B}😀"), .number(-1.5)])))
        #expect(value.jsonBytes() == Array(value.jsonText().utf8))
        #expect(value.jsonText() == #"{"é":["\#u{7F}\u001b😀",-1.5]}"#)
        #expect(value.jsonBytes(pretty: true) == Array(value.jsonText(pretty: true).utf8))
    }

    @Test func integersPrintWithoutFraction() {
        #expect(JSONValue.number(0).jsonText() == "0")
        #expect(JSONValue.number(-0.0).jsonText() == "0")
        #expect(JSONValue.number(9_007_199_254_740_992).jsonText() == "9007199254740992")
        #expect(JSONValue.number(-12).jsonText() == "-12")
        #expect(JSONValue.number(0.1).jsonText() == "0.1")
        #expect(JSONValue.number(2.5).jsonText() == "2.5")
    }

    @Test func nonFiniteNumbersBecomeNull() {
        #expect(
            JSONValue.array([.number(.infinity), .number(-.infinity), .number(.nan)]).jsonText() == "[null,null,null]"
        )
    }

    @Test func prettyText() {
        let value = object(("a", .number(1)), ("b", .array([.number(2), object(("c", .null))])), ("d", .object([])))
        #expect(
            value.jsonText(pretty: true) == """
                {
                  "a": 1,
                  "b": [
                    2,
                    {
                      "c": null
                    }
                  ],
                  "d": {}
                }
                """)
    }

    @Test func roundTrip() throws {
        let values: [JSONValue] = [
            .null, .bool(false), .number(123_456_789), .number(-0.000123), .number(1.7976931348623157e308),
            .number(.leastNonzeroMagnitude), .string(""), .string("\u{0}\u{7F}\u{2028}\"'\\"),
            object(("nested", object(("deeper", .array([.string("x"), .number(1.5), object()])))), ("", .number(2))),
        ]
        for value in values {
            #expect(try JSON5.parse(value.jsonText(), file: "r").value == value, "\(value.jsonText())")
            #expect(try JSON5.parse(value.jsonText(pretty: true), file: "r").value == value)
        }
    }

    @Test func parseJSONIsLenientButRefusesGarbage() {
        #expect(
            JSONValue.parseJSON(Array(#"{"a": [1, 2,], // note"#.utf8) + Array("\n}".utf8))
                == object(("a", .array([.number(1), .number(2)]))))
        #expect(JSONValue.parseJSON(Array("{\"a\": ".utf8)) == nil)
        #expect(JSONValue.parseJSON([]) == nil)
        #expect(JSONValue.parseJSON([0x22, 0xFF, 0x22]) == nil)
        #expect(JSONValue.parseJSON(Array("<html>".utf8)) == nil)
    }

    @Test func aNodeHoldsTheValueAsItIsAndItsChildrenAsNodes() throws {
        let node = try JSON5.parse("{a: [1.50, 'x', null, false]}", file: "f")
        #expect(node.value == object(("a", .array([.number(1.5), .string("x"), .null, .bool(false)]))))
        #expect(node.typeName == "object")
        let array = try #require(node.members?.first?.value)
        #expect(array.typeName == "array")
        #expect(array.value == .array([.number(1.5), .string("x"), .null, .bool(false)]))
        // The number keeps the file's text; its node keeps its column.
        let first = try #require(array.elements?.first)
        guard case .number(let number) = first.value else { Issue.record("not a number"); return }
        #expect(number.text == "1.50")
        #expect(first.location.column == 6)
    }
}

@Suite struct JSONPointerTests {
    static let document = object(
        ("a", object(("b", .string("ab")))), ("arr", .array([.number(10), .number(11), object(("k", .bool(true)))])),
        ("a/b", .number(1)), ("m~n", .number(2)), ("", .number(3)), ("c%d", .number(4)), (" ", .number(5)))

    @Test func getFollowsRFC6901() {
        let doc = Self.document
        #expect(doc.value(at: "") == doc)
        #expect(doc.value(at: "/a/b") == .string("ab"))
        #expect(doc.value(at: "/arr/0") == .number(10))
        #expect(doc.value(at: "/arr/2/k") == .bool(true))
        #expect(doc.value(at: "/a~1b") == .number(1))
        #expect(doc.value(at: "/m~0n") == .number(2))
        #expect(doc.value(at: "/") == .number(3))
        #expect(doc.value(at: "/c%d") == .number(4))
        #expect(doc.value(at: "/ ") == .number(5))
    }

    @Test func getReturnsNilWhenThePointerLeadsNowhere() {
        let doc = Self.document
        for pointer in [
            "/missing", "/arr/3", "/arr/-", "/arr/01", "/arr/x", "/arr/-1", "/a/b/c", "a", "/~2", "/a~", "/arr/0/x",
        ] {
            #expect(doc.value(at: pointer) == nil, "\(pointer)")
        }
    }

    @Test func parsedPointersEscapeBack() throws {
        let pointer = try JSONPointer("/a~1b/m~0n/0")
        #expect(pointer.tokens == ["a/b", "m~n", "0"])
        #expect(pointer.description == "/a~1b/m~0n/0")
        #expect(throws: JSONPointerError(pointer: "x", message: "a JSON pointer must be empty or start with '/'")) {
            try JSONPointer("x")
        }
        #expect(
            throws: JSONPointerError(pointer: "/a~", message: "'~' must be followed by '0' or '1' in a JSON pointer")
        ) {
            try JSONPointer("/a~")
        }
        #expect(try JSONPointer("").tokens.isEmpty)
        #expect(try JSONPointer("/").tokens == [""])
    }

    @Test func setReplacesCreatesAndAppends() throws {
        var doc = Self.document
        try doc.set(.string("new"), at: "/a/b")
        #expect(doc.value(at: "/a/b") == .string("new"))
        try doc.set(.number(1), at: "/x/y/z")
        #expect(doc.value(at: "/x") == object(("y", object(("z", .number(1))))))
        try doc.set(.number(12), at: "/arr/-")
        try doc.set(.number(13), at: "/arr/4")
        try doc.set(.number(0), at: "/arr/0")
        #expect(
            doc.value(at: "/arr")
                == .array([.number(0), .number(11), object(("k", .bool(true))), .number(12), .number(13)]))
        try doc.set(.null, at: "/a~1b")
        try doc.set(.null, at: "/m~0n")
        #expect(doc.value(at: "/a~1b") == .null)
        #expect(doc.value(at: "/m~0n") == .null)
        // Replacing keeps the member where it was.
        guard case .object(let members) = doc else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "arr", "a/b", "m~n", "", "c%d", " ", "x"])
        try doc.set(.bool(true), at: "")
        #expect(doc == .bool(true))
    }

    @Test func setRefusesImpossiblePathsAndLeavesTheValueUnchanged() {
        let original = Self.document
        let cases: [(String, String)] = [
            ("/arr/9", "index 9 is past the end of an array of 3"),
            ("/arr/x", "'x' is not an array index"),
            ("/arr/01", "'01' is not an array index"),
            ("/a/b/c", "'c' cannot be set inside a string"),
            ("/arr/2/k/z", "'z' cannot be set inside a boolean"),
        ]
        for (pointer, message) in cases {
            var doc = original
            #expect(throws: JSONPointerError(pointer: pointer, message: message)) { try doc.set(.null, at: pointer) }
            #expect(doc == original, "\(pointer) changed the document")
        }
        var doc = original
        #expect(throws: JSONPointerError.self) { try doc.set(.null, at: "nope") }
    }
}
