import Testing

@testable import FaultlineConfig

@Suite struct ConfigObjectReaderTests {
    func reader(_ text: String) throws -> ConfigObjectReader {
        try ConfigObjectReader(JSON5.parse(text, file: "r.json5"), context: "rule 'x'")
    }

    func at(_ line: Int, _ column: Int) -> FaultlineConfig.SourceLocation {
        FaultlineConfig.SourceLocation(file: "r.json5", line: line, column: column)
    }

    @Test func typedGettersReturnValuesAndNilWhenAbsent() throws {
        let r = try reader("{s: 'x', i: 3, d: 0.5, b: true, a: [1], o: {k: 1}}")
        #expect(try r.string("s") == "x")
        #expect(try r.requiredString("s") == "x")
        #expect(try r.int("i", in: 1...Int.max) == 3)
        #expect(try r.requiredInt("i") == 3)
        #expect(try r.double("d", in: 0...1) == 0.5)
        #expect(try r.double("i") == 3)
        #expect(try r.bool("b") == true)
        #expect(try r.array("a")?.count == 1)
        #expect(try r.object("o", context: "'o'")?.keys == ["k"])
        #expect(try r.string("missing") == nil)
        #expect(try r.int("missing") == nil)
        #expect(try r.object("missing", context: "'missing'") == nil)
        #expect(r.keyLocation("i") == at(1, 10))
        #expect(r.location == at(1, 1))
    }

    @Test func wrongTypesAndRangesPointAtTheValue() throws {
        let r = try reader(
            "{\n  times: \"3\", nth: 0, p: 1.5, f: 2.5, s: 4, b: 'yes', o: [], inf: Infinity, big: 1e300 }")
        #expect(throws: ConfigError(#"'times' must be a positive integer, found "3""#, at: at(2, 10))) {
            try r.int("times", in: 1...Int.max)
        }
        #expect(throws: ConfigError("'nth' must be a positive integer, found 0", at: at(2, 20))) {
            try r.int("nth", in: 1...Int.max)
        }
        #expect(throws: ConfigError("'nth' must be an integer ≥ 5, found 0", at: at(2, 20))) {
            try r.int("nth", in: 5...Int.max)
        }
        #expect(throws: ConfigError("'f' must be an integer ≥ 0, found 2.5", at: at(2, 34))) {
            try r.int("f", in: 0...Int.max)
        }
        #expect(throws: ConfigError("'p' must be a number from 0 to 1, found 1.5", at: at(2, 26))) {
            try r.double("p", in: 0...1)
        }
        #expect(throws: ConfigError("'p' must be an integer from 100 to 599, found 1.5", at: at(2, 26))) {
            try r.int("p", in: 100...599)
        }
        #expect(throws: ConfigError("'s' must be a string, found 4", at: at(2, 42))) { try r.string("s") }
        #expect(throws: ConfigError(#"'b' must be true or false, found "yes""#, at: at(2, 48))) { try r.bool("b") }
        #expect(throws: ConfigError("'o' must be an object, found an array", at: at(2, 58))) {
            try r.object("o", context: "'o'")
        }
        #expect(throws: ConfigError("'s' must be an array, found 4", at: at(2, 42))) { try r.array("s") }
        #expect(throws: ConfigError("'inf' must be a number, found null", at: at(2, 67))) { try r.double("inf") }
        #expect(throws: ConfigError("'big' must be an integer, found 1e+300", at: at(2, 82))) { try r.int("big") }
        #expect(throws: ConfigError("'b' must be a weekday, found \"yes\"", at: at(2, 48))) {
            try r.int("b", expected: "a weekday")
        }
    }

    @Test func missingRequiredKeysPointAtTheObject() throws {
        let r = try reader("  {a: 1}")
        #expect(throws: ConfigError("missing required key 'name' in rule 'x'", at: at(1, 3))) {
            try r.requiredString("name")
        }
        #expect(throws: ConfigError("missing required key 'n' in rule 'x'", at: at(1, 3))) { try r.requiredInt("n") }
    }

    @Test func nonObjectsAreRefused() throws {
        #expect(throws: ConfigError("rule 'x' must be an object, found an array", at: at(1, 1))) { try reader("[]") }
        let node = try JSON5.parse("'str'", file: "r.json5")
        #expect(throws: ConfigError(#"'match' must be an object, found "str""#, at: at(1, 1))) {
            try ConfigObjectReader(node, name: "'match'", context: "'match' of rule 'x'")
        }
    }

    @Test func everyUnknownKeyIsReportedWithASuggestion() throws {
        let r = try reader("{\n  mathc: {},\n  name: 'a',\n  Actions: [],\n  zzz: 1,\n}")
        let allowed = ["name", "match", "actions", "when", "then"]
        #expect(
            r.unknownKeyErrors(allowed: allowed) == [
                ConfigError("unknown key 'mathc' in rule 'x' (did you mean 'match'?)", at: at(2, 3)),
                ConfigError("unknown key 'Actions' in rule 'x' (did you mean 'actions'?)", at: at(4, 3)),
                ConfigError("unknown key 'zzz' in rule 'x'", at: at(5, 3)),
            ])
        #expect(throws: ConfigError("unknown key 'mathc' in rule 'x' (did you mean 'match'?)", at: at(2, 3))) {
            try r.finish(allowedKeys: allowed)
        }
        #expect(throws: Never.self) { try r.finish(allowedKeys: allowed + ["mathc", "Actions", "zzz"]) }
    }

    @Test func foundDescriptionsShortenLongStrings() throws {
        let long = String(repeating: "é", count: 50)
        let node = try JSON5.parse("'\(long)'", file: "r.json5")
        #expect(node.foundDescription == "\"" + String(repeating: "é", count: 40) + "…\"")
        #expect(try JSON5.parse("{}", file: "r").foundDescription == "an object")
        #expect(try JSON5.parse("null", file: "r").foundDescription == "null")
        #expect(try JSON5.parse("false", file: "r").foundDescription == "false")
        #expect(try JSON5.parse("'a\"\\n'", file: "r").foundDescription == #""a\"\n""#)
    }

    @Test func suggestionsPreferSameLettersThenEditDistance() {
        #expect(ConfigError.nearest(to: "HTTPS", in: ["http", "https"]) == "https")
        #expect(ConfigError.nearest(to: "respnd", in: ["respond", "rewrite"]) == "respond")
        #expect(ConfigError.nearest(to: "xyz", in: ["respond", "rewrite"]) == nil)
        // Swapped neighbours count as one edit, as in the rules README ('mathc' -> 'match').
        #expect(ConfigError.nearest(to: "mathc", in: ["name", "match"]) == "match")
        #expect(ConfigError.nearest(to: "ab", in: ["ba"]) == "ba")
        #expect(ConfigError.nearest(to: "abc", in: ["cba"]) == nil)
        #expect(ConfigError.didYouMean("lineag", in: ["global", "lineage"]) == " (did you mean 'lineage'?)")
        #expect(ConfigError.didYouMean("q", in: ["global"]) == "")
    }
}
