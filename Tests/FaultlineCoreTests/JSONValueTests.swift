import FaultlineCore
import Testing

/// The one JSON value: numbers by text and by value, JSON's equality, the writer.
@Suite struct JSONValueTests {
    @Test func numbersFromDoublesGetCanonicalText() {
        #expect(JSONNumber(401.0).text == "401")
        #expect(JSONNumber(-0.0).text == "0")
        #expect(JSONNumber(0.1).text == "0.1")
        #expect(JSONNumber(1e20).text == "1e+20")
        #expect(JSONNumber(Double.infinity).text == "Infinity")
        #expect(JSONNumber(Double.nan).isNaN)
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber(text: "1.50")?.text == "1.50")
        #expect(JSONNumber(text: "01") == nil)
        #expect(JSONNumber(text: "+1") == nil)
        #expect(JSONNumber(text: ".5") == nil)
        #expect(JSONNumber(text: "1e") == nil)
    }

    @Test func numbersCompareByValue() {
        #expect(JSONNumber("1") == JSONNumber("1.0"))
        #expect(JSONNumber("1e3") == JSONNumber(1000.0))
        #expect(JSONNumber("1") != JSONNumber("2"))
        #expect(Set([JSONNumber("1"), JSONNumber("1.00"), JSONNumber("-0"), JSONNumber("0")]).count == 2)
    }

    @Test func objectsCompareInAnyOrderAndHashAlike() {
        let one = JSONValue.object(["a": .int(1), "b": .array([.null, .bool(true)])])
        let other = JSONValue.object(["b": .array([.null, .bool(true)]), "a": .number(1.0)])
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(one != .object(["a": .int(1)]))
        #expect(JSONValue.array([.int(1), .int(2)]) != .array([.int(2), .int(1)]), "arrays keep order")
    }

    @Test func accessors() {
        let value = JSONValue.object(["s": .string("x"), "i": .int(7), "d": .number(2.5), "n": .null])
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.intValue == 7)
        #expect(value["d"]?.intValue == nil)
        #expect(value["d"]?.doubleValue == 2.5)
        #expect(value["n"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value.objectValue?["i"] == .int(7))
        #expect(value["i"]?.typeName == "an integer")
        #expect(value["d"]?.typeName == "a number")
    }

    @Test func writerEscapesWhatBreaksALineAndIndents() {
        let value = JSONValue.object([
            "k\"": .string("a\nb\u{2028}c\u{85}d\u{1}\u{8}é€\u{2030}\\"), "e": .array([]), "o": .object([]),
        ])
        #expect(value.jsonText() == #"{"k\"":"a\nb\u2028c\u0085d\u0001\bé€‰\\","e":[],"o":{}}"#)
        #expect(
            JSONValue.array([.int(1), .object(["a": .null])]).jsonText(pretty: true)
                == "[\n  1,\n  {\n    \"a\": null\n  }\n]")
        #expect(JSONValue.array([.number(.nan), .number(-.infinity)]).jsonText() == "[null,null]")
        #expect(
            JSONValue.parse(value.jsonBytes()) == value, "what the writer writes, the parser reads back")
    }
}
