import Testing

@testable import FaultlineHTTP1

@Suite struct HTTPHeadersTests {
    @Test func lookupsIgnoreCase() {
        let headers: HTTPHeaders = [("Content-Type", "text/html"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2")]
        #expect(headers.count == 3)
        #expect(headers.first(name: "content-type") == "text/html")
        #expect(headers.first(name: "CONTENT-TYPE") == "text/html")
        #expect(headers.first(name: "content-typ") == nil)
        #expect(headers.values(name: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.contains(name: "Set-cookie"))
        #expect(!headers.contains(name: "Cookie"))
        #expect(headers[1] == HTTPHeaders.Field(name: "set-cookie", value: "a=1"))
        #expect(headers == HTTPHeaders([("Content-Type", "text/html"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2")]))
    }

    @Test func editing() {
        var headers = HTTPHeaders()
        headers.add(name: "A", value: "1")
        headers.add(name: "b", value: "2")
        headers.add(name: "a", value: "3")
        headers.replaceOrAdd(name: "A", value: "x")
        #expect(headers == [("A", "x"), ("b", "2")])
        headers.replaceOrAdd(name: "C", value: "y")
        #expect(headers == [("A", "x"), ("b", "2"), ("C", "y")])
        headers.add(name: "B", value: "4")
        headers.remove(name: "B")
        #expect(headers == [("A", "x"), ("C", "y")])
        #expect(headers.map(\.name) == ["A", "C"])
    }

    @Test func tokenLists() {
        let headers: HTTPHeaders = [
            ("Connection", "keep-alive, Upgrade"), ("connection", " , TE ,"), ("Upgrade", "WebSocket"),
            ("Foo", "\"a, b\", c"),
        ]
        #expect(headers.tokens(inField: "Connection") == ["keep-alive", "upgrade", "te"])
        #expect(headers.tokens(inField: "foo") == ["\"a, b\"", "c"])
        #expect(headers.tokens(inField: "Missing") == [])
        #expect(headers.containsToken("UPGRADE", inField: "connection"))
        #expect(headers.containsToken("te", inField: "Connection"))
        #expect(!headers.containsToken("close", inField: "Connection"))
        #expect(!headers.containsToken("upgrade", inField: "Upgrade"))
        #expect(headers.containsToken("websocket", inField: "Upgrade"))
        #expect(HTTPHeaders([("X", "\"a\\\"")]).tokens(inField: "x") == ["\"a\\\""])
    }
}
