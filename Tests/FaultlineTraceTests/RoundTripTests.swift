import FaultlineCore
import Testing

@testable import FaultlineTrace

@Test func everyFieldKindRoundTrips() throws {
    let recorder = try memoryRecorder()
    let body = BodySummary(length: 12, fingerprint: "fp:0123456789abcdef")
    recorder.record(
        .requestReceived, connection: ConnectionID(3), flow: FlowID(7),
        [
            .string("method", "GET"),
            .string(
                "odd", "quote\" backslash\\ newline\n tab\t nul\u{0} bell\u{7} ls\u{2028} ps\u{2029} nel\u{85} é 🦊"),
            .int("status", 200), .int("negative", Int64.min), .int("big", Int64.max),
            .double("ratio", 2.5), .double("whole", 3.0), .double("tiny", 1e-9), .double("nan", .nan),
            .bool("yes", true), .bool("no", false), .null("nothing"),
            .strings("list", ["a", "", "c\"d"]), .strings("emptyList", []),
            .object("nested", [.int("depth", 1), .object("inner", [.string("k", "v")])]),
            .headers("headers", [("Host", "example.com"), ("Authorization", "Bearer T"), ("Host", "dup")]),
            .headers("noHeaders", []),
            .target("target", "/path?token=T&x=1"),
            .secret("secret", "T"),
            .body("body", body),
        ])
    let trace = try TraceReader.read(recorder.memoryContents())
    let event = try #require(trace.events.first)
    let fp = recorder.fingerprint("T")
    #expect(event.seq == 1)
    #expect(event.kind == .requestReceived)
    #expect(event.connection == ConnectionID(3))
    #expect(event.flow == FlowID(7))
    #expect(event.string("method") == "GET")
    #expect(
        event.string("odd")
            == "quote\" backslash\\ newline\n tab\t nul\u{0} bell\u{7} ls\u{2028} ps\u{2029} nel\u{85} é 🦊")
    #expect(event.int("status") == 200)
    #expect(event.int("negative") == Int64.min)
    #expect(event.int("big") == Int64.max)
    #expect(event["ratio"] == .number(2.5))
    #expect(event["whole"] == .number(3.0))
    #expect(event.double("tiny") == 1e-9)
    #expect(event.isNull("nan"))
    #expect(event.bool("yes") == true)
    #expect(event.bool("no") == false)
    #expect(event.isNull("nothing"))
    #expect(event.strings("list") == ["a", "", "c\"d"])
    #expect(event.strings("emptyList") == [])
    #expect(event.object("nested") == ["depth": .int(1), "inner": .object(["k": .string("v")])])
    let headers = try #require(event.headers("headers"))
    #expect(headers.map(\.name) == ["Host", "Authorization", "Host"])
    #expect(headers.map(\.value) == ["example.com", "Bearer \(fp)", "dup"])
    #expect(event.headerValues("headers", named: "host") == ["example.com", "dup"])
    #expect(event.headers("noHeaders")?.isEmpty == true)
    #expect(event.string("target") == "/path?token=\(fp)&x=1")
    #expect(event.string("secret") == fp)
    #expect(event.body("body") == body)
    #expect(event.attributes.count == 20)
    // Typed accessors refuse other types.
    #expect(event.int("method") == nil)
    #expect(event.string("status") == nil)
    #expect(event.headers("list") == nil)
    #expect(event.body("nested") == nil)
}

@Test func linesKeepTheDocumentedLayout() throws {
    let recorder = try memoryRecorder()
    recorder.record(.connectionOpened, connection: ConnectionID(3), [.string("peer", "127.0.0.1:5000")])
    recorder.record(.mark, [.string("label", "logout")])
    let lines = recorder.memoryContents().split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 4)
    #expect(lines[3].isEmpty)
    let header = try #require(lines.first)
    #expect(header.hasPrefix("{\"faultline_trace\":1,\"faultline\":\"\(FaultlineVersion.string)\",\"created\":\""))
    #expect(header.hasSuffix("\",\"fingerprint\":\"hmac-sha256-64\"}"))
    #expect(lines[1].hasPrefix("{\"seq\":1,\"wall\":\""))
    #expect(lines[1].contains("\",\"mono_ns\":"))
    #expect(lines[1].hasSuffix(",\"event\":\"connection.opened\",\"conn\":3,\"peer\":\"127.0.0.1:5000\"}"))
    #expect(lines[2].hasPrefix("{\"seq\":2,"))
    #expect(lines[2].hasSuffix(",\"event\":\"mark\",\"label\":\"logout\"}"))
    let trace = try TraceReader.read(recorder.memoryContents())
    #expect(trace.header.formatVersion == 1)
    #expect(trace.header.faultlineVersion == FaultlineVersion.string)
    #expect(trace.header.fingerprint == "hmac-sha256-64")
    #expect(trace.events.map(\.kind) == [.connectionOpened, .mark])
    #expect(trace.events[1].connection == nil && trace.events[1].flow == nil)
    for event in trace.events {
        #expect(event.wall.count == 27)
        #expect(event.wall.hasSuffix("Z"))
        #expect(event.wall.hasPrefix(String(trace.header.created.prefix(4))))
    }
}

@Test func unknownEventKindsAndHeaderKeysAreKept() throws {
    let text = """
        {"faultline_trace":1,"faultline":"9.9.9","created":"2026-11-29T13:04:52.123456Z","fingerprint":"hmac-sha256-64","future":true}
        {"seq":1,"wall":"2026-11-29T13:04:52.123456Z","mono_ns":5,"event":"rule.fired","rule":"force-401"}

        """
    let trace = try TraceReader.read(text)
    #expect(trace.header.attributes == ["future": .bool(true)])
    #expect(trace.header.faultlineVersion == "9.9.9")
    #expect(trace.events[0].kind == TraceEventKind(rawValue: "rule.fired"))
    #expect(trace.events[0].kind.description == "rule.fired")
    #expect(trace.events(TraceEventKind("rule.fired")).count == 1)
}

@Test func aFieldNamedLikeALineKeyIsAProgrammingError() async {
    await #expect(processExitsWith: .failure) {
        let recorder = try TraceRecorder(output: .memory, flushInterval: .zero)
        recorder.record(.mark, [.int("seq", 1)])
    }
    // Nested objects may use any key.
    let recorder = try? memoryRecorder()
    recorder?.record(.mark, [.object("inner", [.int("seq", 1), .string("event", "x")])])
    #expect(recorder?.eventCount == 1)
}
