import FaultlineConfig
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
import FaultlineRules
import FaultlineServer
import FaultlineTrace
import Foundation

/// A proxy with rules and a control listener over loopback, a scripted origin behind it, and a
/// control client holding the right token.
final class ControlHarness {
    static let token = "control-test-token-3f9a"

    /// Rules the control tests drive: plain holds, a hold released by a mark, a synthetic 418,
    /// and declared states.
    static let scenario = """
        {
          scenario: "demo",
          states: ["started", "loggedOut"],
          initialState: "started",
          rules: [
            { name: "park", match: { path: "/held" }, actions: [{ hold: { name: "gate" } }] },
            { name: "park-for-mark", match: { path: "/marked" },
              actions: [{ hold: { name: "markgate", release: { on: "mark:go" } } }] },
            { name: "teapot", match: { path: "/teapot" }, actions: [{ respond: { status: 418 } }] },
          ],
        }
        """

    let origin: ScriptedOrigin
    let server: ProxyServer
    let control: ControlClient

    /// `rules`: scenario text (nil: run without rules). `rulesDirectory`: load the rules from this
    /// folder instead, and let reload read it.
    init(
        rules: String? = ControlHarness.scenario, rulesDirectory: String? = nil, loops: Int = 1,
        streamBacklog: Int = 8 * 1024 * 1024, uiBacklog: Int = 1024 * 1024
    ) throws {
        origin = try ScriptedOrigin()
        var ruleSet: RuleSet? = nil
        if let rulesDirectory {
            let report = RuleSetLoader.load(directory: rulesDirectory)
            guard report.errors.isEmpty else { throw HarnessError("rules have errors: \(report.errors)") }
            ruleSet = report.ruleSet
        } else if let rules {
            let (scenario, errors) = RuleSetLoader.loadScenario(text: rules, file: "demo.json5")
            guard let scenario else { throw HarnessError("scenario has errors: \(errors)") }
            ruleSet = RuleSet(scenarios: [scenario])
        }
        let any = try SocketAddress(parsing: "127.0.0.1:0")
        server = ProxyServer(
            configuration: ServerConfiguration(
                listeners: [ListenerConfiguration(address: any, mode: .forward)], loopCount: loops),
            trace: try TraceRecorder(output: .memory, flushInterval: .zero), ruleSet: ruleSet,
            control: ControlConfiguration(
                address: any, token: Self.token, rulesDirectory: rulesDirectory, maximumStreamBacklog: streamBacklog,
                maximumUIBacklog: uiBacklog))
        do {
            try server.start()
        } catch {
            origin.stop()
            throw error
        }
        guard let address = server.controlAddress else { throw HarnessError("no control address") }
        control = ControlClient(address: address, token: Self.token, timeout: .seconds(5))
    }

    func stop() {
        server.stop()
        origin.stop()
    }

    var proxyPort: Int { server.boundAddresses[0].port }
    var controlAddress: SocketAddress { control.address }

    /// A URL on the origin, for requests sent through the proxy.
    func url(_ path: String) -> String { "http://127.0.0.1:\(origin.port)\(path)" }

    /// Calls the API; `json` is the body as JSON text.
    @discardableResult
    func call(_ method: String, _ path: String, json: String? = nil, wait: Duration = .zero) throws -> ControlResponse {
        let body = try json.map { text in
            guard let value = JSONValue.parseJSON(Array(text.utf8)) else {
                throw HarnessError("bad test JSON \(text)")
            }
            return value
        }
        return try control.call(method, path, body: body, wait: wait)
    }

    /// A client of the proxy that has sent `GET url(path)` and not read the answer yet.
    func sendThroughProxy(_ path: String) throws -> BlockingClient {
        let client = try BlockingClient(port: proxyPort)
        client.send("GET \(url(path)) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        return client
    }

    /// Waits (with `GET /v1/holds/{name}/wait`) until a hold named `name` exists.
    @discardableResult
    func waitForHold(_ name: String) throws -> JSONValue {
        let response = try call("GET", "/v1/holds/\(name)/wait?timeout=5", wait: .seconds(5))
        guard response.status == 200, let json = response.json else {
            throw HarnessError("no hold '\(name)': \(response.status) \(response.errorMessage)")
        }
        return json
    }

    /// Polls `condition` until it holds or 5 seconds pass (for states only observable by asking).
    func eventually(_ condition: () throws -> Bool) throws -> Bool {
        let deadline = MonotonicInstant.now().advanced(by: .seconds(5))
        while MonotonicInstant.now() < deadline {
            if try condition() { return true }
            usleep(2_000)
        }
        return try condition()
    }

    func events() throws -> [TraceEvent] {
        server.trace.flush()
        return try TraceReader.read(server.trace.memoryContents()).events
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` with a started harness and always stops it.
func withControl(
    rules: String? = ControlHarness.scenario, rulesDirectory: String? = nil, _ body: (ControlHarness) throws -> Void
) throws {
    let harness = try ControlHarness(rules: rules, rulesDirectory: rulesDirectory)
    defer { harness.stop() }
    try body(harness)
}

extension JSONValue {
    /// The string at an RFC 6901 pointer, or nil.
    func string(_ pointer: String) -> String? {
        if case .string(let text)? = value(at: pointer) { return text }
        return nil
    }

    /// The number at a pointer as an integer, or nil.
    func int(_ pointer: String) -> Int? {
        if case .number(let number)? = value(at: pointer) { return Int(exactly: number.double) }
        return nil
    }

    /// The boolean at a pointer, or nil.
    func bool(_ pointer: String) -> Bool? {
        if case .bool(let flag)? = value(at: pointer) { return flag }
        return nil
    }

    /// Elements of the array at a pointer ("" for the value itself); empty when it is not one.
    func elements(_ pointer: String = "") -> [JSONValue] {
        if case .array(let elements)? = value(at: pointer) { return elements }
        return []
    }
}

/// Hand-written HTTP to the control listener, for what `ControlClient` never sends.
struct RawControlConnection {
    let address: SocketAddress

    func open() throws -> BlockingConnection {
        try BlockingConnection(connectingTo: address, timeout: .seconds(5))
    }

    func send(_ connection: BlockingConnection, _ text: String) throws {
        try connection.sendAll(Array(text.utf8), deadline: MonotonicInstant.now().advanced(by: .seconds(5)))
    }

    /// Reads until `done` holds for the text so far, the peer closes, or 5 seconds pass (throws).
    func readUntil(_ connection: BlockingConnection, _ done: (String) -> Bool) throws -> String {
        let deadline = MonotonicInstant.now().advanced(by: .seconds(5))
        var bytes: [UInt8] = []
        while !done(String(decoding: bytes, as: UTF8.self)) {
            let more = try connection.read(deadline: deadline)
            if more.isEmpty { break }
            bytes += more
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `text` on a new connection and returns the first complete answer, head and body.
    func exchange(_ text: String) throws -> String {
        let connection = try open()
        defer { connection.close() }
        try send(connection, text)
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "GET")
        var raw: [UInt8] = []
        let deadline = MonotonicInstant.now().advanced(by: .seconds(5))
        while true {
            while let event = try decoder.nextEvent() {
                if case .end = event { return String(decoding: raw, as: UTF8.self) }
            }
            let more = try connection.read(deadline: deadline)
            if more.isEmpty {
                decoder.receiveEOF()
                if decoder.isAtMessageBoundary { return String(decoding: raw, as: UTF8.self) }
                continue
            }
            raw += more
            decoder.receive(more)
        }
    }

    /// POSTs `body` (any bytes) with the right token.
    func post(_ path: String, body: String) throws -> String {
        try exchange(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }
}
