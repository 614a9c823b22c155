import FaultlineCore
import Testing

@testable import FaultlineRules

/// The small parsers behind matching and credential extraction.
@Suite struct MatcherParsingTests {
    @Test func bodyJSONAcceptsRFC8259Texts() throws {
        #expect(
            JSONValue.parse(Array(" {\"a\" : [1, -2.5e3, true, false, null, \"x\"]} \n".utf8))
                == .object([
                    "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .string("x")])
                ]))
        #expect(JSONValue.parse(Array("42".utf8)) == .number("42"))
        #expect(JSONValue.parse(Array("\"\"".utf8)) == .string(""))
        #expect(JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("[]".utf8)) == .array([]))
        #expect(JSONValue.parse(Array("{\"k\":1,\"k\":2}".utf8)) == .object(["k": .number("2")]), "last duplicate wins")
    }

    @Test func bodyJSONKeepsNumberTextForCredentials() {
        let document = JSONValue.parse(Array("{\"id\": 12345678901234567890123, \"f\": 1.50}".utf8))
        #expect(document?.value(at: "/id")?.credentialText == "12345678901234567890123")
        #expect(document?.value(at: "/f")?.credentialText == "1.50")
        #expect(document?.value(at: "")?.credentialText == nil)
    }

    @Test func bodyJSONDecodesEscapes() {
        let text = #"["a\"b\\c\/d\n\t", "\u00e9\u4e2d", "\ud83d\ude00", "\ud800x"]"#
        #expect(
            JSONValue.parse(Array(text.utf8))
                == .array([.string("a\"b\\c/d\n\t"), .string("é中"), .string("😀"), .string("\u{FFFD}x")]))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "{'a':1}",
        "{\"a\" 1}", "[1 2]", "\"a\nb\"", "\"\\x\"", "\"\\u12\"", "1 2", "{a:1}", "\"unterminated",
    ])
    func bodyJSONRefusesNonJSON(_ text: String) {
        #expect(JSONValue.parse(Array(text.utf8)) == nil)
    }

    @Test func bodyJSONRefusesDeepNestingInsteadOfCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.parse(Array(deep.utf8)) == nil)
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(JSONValue.parse(Array(fine.utf8)) != nil)
    }

    @Test func jsonPointersFollowRFC6901() throws {
        let document = try #require(JSONValue.parse(Array(#"{"a": [10, {"b/c": 1, "d~e": 2, "": 3}], "~1": 4}"#.utf8)))
        #expect(document.value(at: "") == document)
        #expect(document.value(at: "/a/0") == .number("10"))
        #expect(document.value(at: "/a/1/b~1c") == .number("1"))
        #expect(document.value(at: "/a/1/d~0e") == .number("2"))
        #expect(document.value(at: "/a/1/") == .number("3"))
        #expect(document.value(at: "/~01") == .number("4"))
        #expect(document.value(at: "/a/01") == nil, "leading zero")
        #expect(document.value(at: "/a/-") == nil)
        #expect(document.value(at: "/a/2") == nil)
        #expect(document.value(at: "/a/0/x") == nil, "into a scalar")
        #expect(document.value(at: "a") == nil, "no leading slash")
        #expect(document.value(at: "/a/1/d~2e") == nil, "bad escape")
    }

    @Test func formFieldsAndQueryDifferOnPlus() {
        #expect(FormParsing.formFields(Array("a=1+2&b=%2B&c".utf8)) == ["a": ["1 2"], "b": ["+"], "c": [""]])
        #expect(FormParsing.queryParameters("a=1+2&b=%2B&&c=") == ["a": ["1+2"], "b": ["+"], "c": [""]])
        #expect(FormParsing.queryParameters("k=%E2%82%AC&k=%FF") == ["k": ["€", "\u{FFFD}"]])
        #expect(FormParsing.queryParameters("a%3Db=c=d") == ["a=b": ["c=d"]])
    }

    @Test func requestCookies() {
        #expect(
            CookieParsing.requestCookies(["a=1; b=\"q\"", " c = 3 ;;d", "a=2"])
                == ["a": ["1", "2"], "b": ["\"q\""], "c": ["3"]])
    }

    @Test func setCookieAndDeletions() {
        #expect(
            CookieParsing.setCookie("session=abc; Path=/; HttpOnly")
                == .init(name: "session", value: "abc", isDeletion: false))
        #expect(CookieParsing.setCookie("session=abc=def; Secure")?.value == "abc=def")
        #expect(CookieParsing.setCookie("session=; Path=/")?.isDeletion == true)
        #expect(CookieParsing.setCookie("session=x; Max-Age=0")?.isDeletion == true)
        #expect(CookieParsing.setCookie("session=x; max-age=-1")?.isDeletion == true)
        #expect(CookieParsing.setCookie("session=x; Max-Age=3600")?.isDeletion == false)
        #expect(CookieParsing.setCookie("session=deleted; expires=Thu, 01-Jan-1970 00:00:01 GMT")?.isDeletion == true)
        #expect(CookieParsing.setCookie("session=x; Expires=Thu, 01 Jan 70 00:00:00 GMT")?.isDeletion == true)
        #expect(CookieParsing.setCookie("session=x; Expires=Wed, 21 Oct 2037 07:28:00 GMT")?.isDeletion == false)
        #expect(CookieParsing.setCookie("novalue") == nil)
        #expect(CookieParsing.setCookie("=x") == nil)
    }
}
