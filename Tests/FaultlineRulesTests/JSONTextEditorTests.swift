import FaultlineConfig
import FaultlineCore
import FaultlineRules
import Testing

/// `jsonSet` edits the body's text: only the span of the value a pointer names changes.
@Suite struct JSONTextEditorTests {
    /// The edited text, or nil.
    private func set(_ edits: [(pointer: String, value: JSONValue)], in body: String) -> String? {
        JSONTextEditor.set(edits, in: Array(body.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    private func set(_ pointer: String, _ value: JSONValue, in body: String) -> String? {
        set([(pointer: pointer, value: value)], in: body)
    }

    // MARK: Nothing else changes

    @Test func bigIntegersAndOtherNumberSpellingsStayAsWritten() {
        let body = #"{"id":12345678901234567890,"huge":1e400,"tiny":-0.000E-0,"x":1,"neg":-9007199254740993}"#
        #expect(
            set("/x", .number(2), in: body)
                == #"{"id":12345678901234567890,"huge":1e400,"tiny":-0.000E-0,"x":2,"neg":-9007199254740993}"#)
    }

    @Test func keyOrderStays() {
        #expect(set("/a", .string("new"), in: #"{"z":1,"a":2,"m":3}"#) == #"{"z":1,"a":"new","m":3}"#)
    }

    @Test func whitespaceStays() {
        let body = "\r\n{\t\"plan\" :  \"free\" ,\r\n\n   \"user\":\"ann\"   }\n\n"
        #expect(
            set("/plan", .string("pro"), in: body) == "\r\n{\t\"plan\" :  \"pro\" ,\r\n\n   \"user\":\"ann\"   }\n\n")
    }

    @Test func aByteOrderMarkAndSurroundingWhitespaceStay() {
        let body: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(" {\"a\":1} \n".utf8)
        let edited = JSONTextEditor.set([(pointer: "/a", value: .bool(true))], in: body)
        #expect(edited == [0xEF, 0xBB, 0xBF] + Array(" {\"a\":true} \n".utf8))
    }

    @Test func stringsWithEscapesAndUnicodeAroundTheEditStay() {
        let body = #"{"s":"\"q\" \\ \/ \u00e9 é 😀 \ud83d\ude00 \n","t":1,"日本":"\u65e5\t"}"#
        #expect(
            set("/t", .null, in: body) == #"{"s":"\"q\" \\ \/ \u00e9 é 😀 \ud83d\ude00 \n","t":null,"日本":"\u65e5\t"}"#)
    }

    /// The property the editor exists for: the output is the input with exactly one span replaced.
    @Test(arguments: [
        ("/id", "12345678901234567890"), ("/name", #""Z\u00fcrich \"HQ\"""#), ("/tags/1", #""b""#),
        ("/tags", #"[ "a" , "b" ]"#), ("/deep/x~1y/0/m~0n", "1.50e+3"),
        ("/deep", #"{ "x/y" : [ { "m~n" : 1.50e+3 } ] }"#),
        ("/empty", "{}"), ("/flag", "false"), ("", ""),
    ])
    func everyOtherByteIsUnchanged(_ pointer: String, _ originalText: String) throws {
        let body = """
            \u{FEFF}
            {
              "id" : 12345678901234567890,
              "name":"Z\\u00fcrich \\"HQ\\"",
              "tags": [ "a" , "b" ],
              "deep":{ "x/y" : [ { "m~n" : 1.50e+3 } ] },
              "empty" :{},
              "flag":\tfalse
            }\t
            """
        let bytes = Array(body.utf8)
        let replacement = JSONValue.object([JSONMember(key: "new", value: .array([.number(1), .string("é")]))])
        let edited = try #require(JSONTextEditor.set([(pointer: pointer, value: replacement)], in: bytes))
        // The target's span, found independently of the editor: its text is unique in the body.
        // The whole document lies between the byte order mark and line feed (4 bytes) and the tab.
        let original = pointer.isEmpty ? Array(bytes[4..<bytes.count - 1]) : Array(originalText.utf8)
        if pointer.isEmpty { #expect(original.starts(with: Array("{\n".utf8)) && original.last == UInt8(ascii: "}")) }
        let start = try #require(Self.firstRange(of: original, in: bytes)).lowerBound
        let expected = bytes[..<start] + replacement.jsonBytes() + bytes[(start + original.count)...]
        #expect(edited == Array(expected))
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start..<start + needle.count
        }
        return nil
    }

    // MARK: Pointers

    @Test func aNestedPointerEditsTheValueItNames() {
        let body = #"{"a":{"b":[{"c":1},{"c":2}]},"c":3}"#
        #expect(set("/a/b/1/c", .string("two"), in: body) == #"{"a":{"b":[{"c":1},{"c":"two"}]},"c":3}"#)
    }

    @Test func escapedKeysAreUnescapedFirst() {
        let body = #"{"a/b":1,"m~n":2,"a":{"b":3}}"#
        #expect(set("/a~1b", .number(10), in: body) == #"{"a/b":10,"m~n":2,"a":{"b":3}}"#)
        #expect(set("/m~0n", .number(20), in: body) == #"{"a/b":1,"m~n":20,"a":{"b":3}}"#)
        #expect(set("/a/b", .number(30), in: body) == #"{"a/b":1,"m~n":2,"a":{"b":30}}"#)
    }

    @Test func memberNamesAreComparedAfterTheirJSONEscapes() {
        // `\u0070lan` is `plan`, `\ud83d\ude00` is 😀, `\/` is `/`.
        let body = #"{"\u0070lan":"free","\ud83d\ude00":1,"a\/b":2}"#
        #expect(set("/plan", .string("pro"), in: body) == #"{"\u0070lan":"pro","\ud83d\ude00":1,"a\/b":2}"#)
        #expect(set("/😀", .number(5), in: body) == #"{"\u0070lan":"free","\ud83d\ude00":5,"a\/b":2}"#)
        #expect(set("/a~1b", .number(6), in: body) == #"{"\u0070lan":"free","\ud83d\ude00":1,"a\/b":6}"#)
    }

    @Test func theLastOfDuplicateKeysIsEdited() {
        #expect(set("/a", .number(9), in: #"{"a":1,"b":0,"a":2}"#) == #"{"a":1,"b":0,"a":9}"#)
    }

    @Test func theEmptyPointerReplacesTheWholeDocument() {
        #expect(set("", .array([.number(1)]), in: " \n{\"a\": 12345678901234567890}\t") == " \n[1]\t")
        #expect(set("", .string("x"), in: "null") == #""x""#)
    }

    // MARK: Adding

    @Test func aMissingMemberIsAddedToAnEmptyObject() {
        #expect(set("/a", .number(1), in: "{}") == #"{"a":1}"#)
        #expect(set("/a", .number(1), in: "{ \n }") == "{\"a\":1 \n }")
        #expect(set("/o/k", .string("v"), in: #"{"o":{}}"#) == #"{"o":{"k":"v"}}"#)
    }

    @Test func aMissingMemberIsAddedAfterTheLastOneWithItsSpacing() {
        #expect(set("/b", .number(2), in: #"{"a":1}"#) == #"{"a":1,"b":2}"#)
        #expect(set("/c", .number(3), in: #"{"a":1, "b" : 2 }"#) == #"{"a":1, "b" : 2, "c" : 3 }"#)
        #expect(set("/b", .bool(false), in: "{\n  \"a\": 1\n}\n") == "{\n  \"a\": 1,\n  \"b\": false\n}\n")
        // A name that needs escaping is written escaped.
        #expect(set(#"/say "hi"~1x"#, .null, in: #"{"a":1}"#) == #"{"a":1,"say \"hi\"/x":null}"#)
    }

    @Test func anArrayIndexReplacesThatElement() {
        #expect(set("/1", .string("b"), in: "[1, 2, 3]") == #"[1, "b", 3]"#)
        #expect(set("/0", .object([]), in: "[ 12345678901234567890 ]") == "[ {} ]")
    }

    @Test func dashOrTheIndexAfterTheLastAppends() {
        #expect(set("/-", .number(4), in: "[1, 2, 3]") == "[1, 2, 3, 4]")
        #expect(set("/3", .number(4), in: "[1, 2, 3]") == "[1, 2, 3, 4]")
        #expect(set("/-", .number(1), in: "[]") == "[1]")
        #expect(set("/0", .number(1), in: "[ ]") == "[1 ]")
        #expect(set("/list/-", .string("z"), in: "{\"list\": [\n\t\"x\"\n]}") == "{\"list\": [\n\t\"x\",\n\t\"z\"\n]}")
    }

    @Test func editsApplyInOrder() {
        let edits: [(pointer: String, value: JSONValue)] = [
            (pointer: "/a", value: .object([])), (pointer: "/a/b", value: .number(1)),
            (pointer: "/a/b", value: .number(2)),
            (pointer: "/list/-", value: .string("x")), (pointer: "/list/0", value: .string("y")),
        ]
        #expect(set(edits, in: #"{"list":[], "n": 1e400}"#) == #"{"list":["y"], "n": 1e400, "a": {"b":2}}"#)
    }

    @Test func aValueIsWrittenAsJSONText() {
        let value = JSONValue.object([
            JSONMember(key: "s", value: .string("a\"b\\c\n\u{1}é")), JSONMember(key: "n", value: .number(0.5)),
            JSONMember(key: "i", value: .number(401)),
        ])
        #expect(set("/v", value, in: "{}") == #"{"v":{"s":"a\"b\\c\n\u0001é","n":0.5,"i":401}}"#)
    }

    @Test func aDeeplyNestedDocumentIsScannedWithoutRecursion() {
        let depth = 100_000
        let nest = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(set("/x", .number(2), in: #"{"deep":"# + nest + #","x":1}"#) == #"{"deep":"# + nest + #","x":2}"#)
        #expect(set("/x", .number(2), in: String(repeating: "[", count: depth)) == nil)
    }

    /// Where a parent exists, the edited text reads back as what `JSONValue.set` makes of the
    /// parsed body (the old parse-and-serialize path), appended members and elements included.
    @Test(arguments: [
        "", "/a", "/a/b", "/a/b/0", "/a/b/-", "/a/b/2", "/a/new", "/c", "/c~1d", "/e~0f", "/list/1/k", "/list/0",
    ])
    func readsBackAsConfigValueSetWouldMakeIt(_ pointer: String) throws {
        let body = #"{ "a": {"b": [1, 2]}, "c/d": "x", "e~f": null, "list": [{}, {"k": true}] }"#
        let value = JSONValue.array([.string("v"), .number(-2.5)])
        var expected = try #require(JSONValue.parseJSON(Array(body.utf8)))
        try expected.set(value, at: pointer)
        let edited = try #require(JSONTextEditor.set([(pointer: pointer, value: value)], in: Array(body.utf8)))
        #expect(JSONValue.parseJSON(edited) == expected)
    }

    // MARK: Refusals

    @Test func noEditsGiveTheBodyBackWhenItIsJSON() {
        #expect(set([], in: " [1e400] ") == " [1e400] ")
        #expect(set([], in: "[1,]") == nil)
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", #"{"a":1,}"#, "{'a':1}", "{a:1}", "// c\n{}", "/* c */{}", "01", "-", "1.", ".5",
        "1e",
        "+1", "NaN", "Infinity", "0x10", "tru", "nul", "1 2", "{} {}", "[1 2]", #"{"a" 1}"#, #"{"a":1 "b":2}"#,
        #"{"a"::1}"#, #"{,}"#, "[,1]", #""\x""#, #""\u12""#, #""\u12G4""#, "\"tab\there\"", "\"line\nbreak\"",
        #""unterminated"#, #"{"a":"\"}"#, "\u{FEFF}\u{FEFF}{}",
    ])
    func invalidJSONIsRefused(_ body: String) {
        #expect(set("/a", .number(1), in: body) == nil)
        #expect(set("", .number(1), in: body) == nil)
    }

    @Test(
        arguments: [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22], [0xC3, 0xA9],
        ] as [[UInt8]])
    func malformedUTF8IsRefused(_ body: [UInt8]) {
        #expect(JSONTextEditor.set([(pointer: "", value: .null)], in: body) == nil)
    }

    @Test func wellFormedUTF8IsAccepted() {
        // "€", "𐍈", U+FFFF and U+10FFFF: the edges of each sequence length.
        for scalar in [
            [0xE2, 0x82, 0xAC], [0xF0, 0x90, 0x8D, 0x88], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xDF, 0xBF],
        ]
            as [[UInt8]]
        {
            let body = [0x5B, 0x22] + scalar + [0x22, 0x2C, 0x30, 0x5D]  // ["…",0]
            #expect(
                JSONTextEditor.set([(pointer: "/1", value: .number(7))], in: body) == Array(body.dropLast(2)) + [
                    0x37, 0x5D,
                ])
        }
    }

    /// A missing parent is made as objects, as `JSONValue.set` (and `jsonSet` before the text
    /// editor) does.
    @Test func aMissingParentIsCreatedAsObjects() {
        let body = #"{"a":1,"o":{},"list":[1,2]}"#
        #expect(set("/missing/b", .number(1), in: body) == #"{"a":1,"o":{},"list":[1,2],"missing":{"b":1}}"#)
        #expect(set("/o/x/y", .number(1), in: body) == #"{"a":1,"o":{"x":{"y":1}},"list":[1,2]}"#)
        #expect(set("/list/-/x", .number(1), in: body) == #"{"a":1,"o":{},"list":[1,2,{"x":1}]}"#)
        #expect(set("/list/2/x", .number(1), in: body) == #"{"a":1,"o":{},"list":[1,2,{"x":1}]}"#)
        for pointer in ["/missing/b", "/o/x/y", "/list/-/x"] {
            var expected = JSONValue.parseJSON(Array(body.utf8))!
            try? expected.set(.number(1), at: pointer)
            let edited = set(pointer, .number(1), in: body).flatMap { JSONValue.parseJSON(Array($0.utf8)) }
            #expect(edited == expected, "\(pointer)")
        }
    }

    @Test func aStepIntoSomethingThatDoesNotExistIsRefused() {
        let body = #"{"a":1,"s":"text","n":null,"o":{},"list":[1,2]}"#
        #expect(set("/list/3/x", .number(1), in: body) == nil, "an index past the end")
        #expect(set("/a/b", .number(1), in: body) == nil, "into a number")
        #expect(set("/s/0", .number(1), in: body) == nil, "into a string")
        #expect(set("/n/x", .number(1), in: body) == nil, "into null")
        #expect(set("/x", .number(1), in: "[1]") == nil, "a name in an array")
    }

    @Test func badArrayIndexesAreRefused() {
        #expect(set("/3", .number(1), in: "[0, 1]") == nil, "past the end")
        #expect(set("/01", .number(1), in: "[0, 1]") == nil, "leading zero")
        #expect(set("/-1", .number(1), in: "[0, 1]") == nil)
        #expect(set("/ 1", .number(1), in: "[0, 1]") == nil)
        #expect(set("/99999999999999999999999", .number(1), in: "[0, 1]") == nil)
    }

    @Test func malformedPointersAreRefused() {
        #expect(set("a", .number(1), in: #"{"a":0}"#) == nil)
        #expect(set("/a~2", .number(1), in: #"{"a~2":0}"#) == nil)
    }

    @Test func aFailingEditRefusesTheWholeBody() {
        let edits: [(pointer: String, value: JSONValue)] = [
            (pointer: "/a", value: .number(1)), (pointer: "/a/y", value: .null),
        ]
        #expect(set(edits, in: #"{"a":0}"#) == nil, "the second edit steps into the number the first set")
    }
}
