import FaultlineContract
import FaultlineTrace
import Foundation

/// Writes small traces the way the proxy does (JSON Lines, header first, gapless `seq`), so each
/// clause can be tested on a hand-written story. Credentials are named (`"a1"`) and written as
/// stable fingerprints (`fp(a1)`), like the proxy's keyed hash.
struct TraceBuilder {
    private(set) var lines: [String] = [
        #"{"faultline_trace":1,"faultline":"test","created":"2026-01-01T00:00:00.000000Z","fingerprint":"hmac-sha256-64"}"#
    ]
    private(set) var seq: UInt64 = 0
    private var mono: UInt64 = 1_000_000_000
    private var nextFlow: UInt64 = 0
    private var nextConnection: UInt64 = 0

    /// `fp:` and 16 hex digits of FNV-1a over the name: stable, distinct per name.
    static func fp(_ name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "fp:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `kind=fp(name)` for each `kind:name` shorthand (`"access:a1"`).
    static func credentials(_ shorthand: [String]) -> [String] {
        shorthand.map { item in
            let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
            return "\(parts[0])=\(fp(parts[1]))"
        }
    }

    /// Lets `milliseconds` pass before the next event (on top of its own 1 ms).
    mutating func elapse(milliseconds: UInt64) { mono += milliseconds * 1_000_000 }

    /// Appends one event line; returns its seq.
    @discardableResult
    mutating func event(_ kind: String, flow: UInt64? = nil, conn: UInt64? = nil, _ fields: [String: Any] = [:])
        -> UInt64
    {
        seq += 1
        mono += 1_000_000  // 1 ms per event
        var object: [String: Any] = [
            "seq": seq, "wall": "2026-01-01T00:00:00.000000Z", "mono_ns": mono, "event": kind,
        ]
        if let flow { object["flow"] = flow }
        if let conn { object["conn"] = conn }
        for (key, value) in fields { object[key] = value }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        lines.append(String(decoding: data, as: UTF8.self))
        return seq
    }

    /// A request arriving from the client. `credentials` are shorthands (`"access:a1"`,
    /// `"session:s1"`, `"refresh:r1"`): the access token becomes `Authorization: Bearer fp(…)`,
    /// the session a `Cookie: session=fp(…)`, and all go in `credentials`, unless `profile` is false.
    @discardableResult
    mutating func request(
        _ method: String, _ path: String, role: String? = "business", lineage: String? = nil,
        credentials: [String] = [], headers: [(String, String)] = [], bodyLength: Int? = nil, profile: Bool = true,
        duplicateOf: UInt64? = nil
    ) -> (flow: UInt64, seq: UInt64) {
        nextFlow += 1
        nextConnection += 1
        var headerList: [[String]] = [["Host", "api.test"]]
        for item in credentials {
            let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
            if parts[0] == "access" { headerList.append(["Authorization", "Bearer \(Self.fp(parts[1]))"]) }
            if parts[0] == "session" { headerList.append(["Cookie", "session=\(Self.fp(parts[1]))"]) }
        }
        for (name, value) in headers { headerList.append([name, value]) }
        if let bodyLength { headerList.append(["Content-Length", String(bodyLength)]) }
        var fields: [String: Any] = [
            "method": method, "url": "http://api.test\(path)", "host": "api.test", "port": 80, "path": path,
            "version": "HTTP/1.1", "headers": headerList,
        ]
        if profile, let role {
            fields["role"] = role
            if let lineage { fields["lineage"] = lineage }
            if !credentials.isEmpty { fields["credentials"] = Self.credentials(credentials) }
        }
        if let duplicateOf {
            // The proxy writes copies without a connection; fields beyond its own are kept so a
            // test can show that a copy carrying credentials is still not the client's request.
            fields["duplicate_of"] = duplicateOf
            let seq = event("request.received", flow: nextFlow, fields)
            return (nextFlow, seq)
        }
        let seq = event("request.received", flow: nextFlow, conn: nextConnection, fields)
        return (nextFlow, seq)
    }

    /// The request went upstream, with a body of `length` bytes fingerprinted as `body`; with
    /// `content`, as a capture writes it too (`{"length", "encoding": "utf8", "data"}`).
    @discardableResult
    mutating func forward(_ flow: UInt64, body: (length: Int, name: String)? = (0, ""), content: String? = nil)
        -> UInt64
    {
        var fields: [String: Any] = ["upstream_conn": 1000 + flow, "upstream": "127.0.0.1:80", "reused": false]
        if let body { fields["body"] = ["length": body.length, "fp": Self.fp("body:" + body.name)] }
        if let content { fields["content"] = ["length": content.utf8.count, "encoding": "utf8", "data": content] }
        return event("request.forwarded", flow: flow, conn: connection(of: flow), fields)
    }

    /// The client got its answer.
    @discardableResult
    mutating func deliver(_ flow: UInt64, _ status: Int, synthetic: Bool = false, retryAfter: String? = nil)
        -> UInt64
    {
        var fields: [String: Any] = ["status": status, "body": ["length": 0, "fp": Self.fp("empty")]]
        if synthetic { fields["synthetic"] = true }
        if let retryAfter { fields["retry_after"] = retryAfter }
        return event("response.delivered", flow: flow, conn: connection(of: flow), fields)
    }

    /// The client went away before its answer.
    @discardableResult
    mutating func abort(_ flow: UInt64) -> UInt64 {
        event("flow.aborted", flow: flow, conn: connection(of: flow), ["reason": "client-closed"])
    }

    /// A request forwarded and answered: `(flow, request seq, answer seq)`.
    @discardableResult
    mutating func exchange(
        _ method: String, _ path: String, status: Int, role: String? = "business", lineage: String? = nil,
        credentials: [String] = [], headers: [(String, String)] = [], body: (length: Int, name: String) = (0, ""),
        profile: Bool = true
    ) -> (flow: UInt64, seq: UInt64, answer: UInt64) {
        let started = request(
            method, path, role: role, lineage: lineage, credentials: credentials, headers: headers,
            bodyLength: body.length, profile: profile)
        forward(started.flow, body: body)
        let answer = deliver(started.flow, status)
        return (started.flow, started.seq, answer)
    }

    /// A login of a new lineage issuing an access token, a refresh token and a session cookie.
    @discardableResult
    mutating func login(_ lineage: String, access: String, refresh: String, session: String? = nil) -> UInt64 {
        let flow = request("POST", "/oauth/token", role: "login", bodyLength: 40).flow
        forward(flow, body: (40, "login"))
        deliver(flow, 200)
        var issued = ["access:\(access)", "refresh:\(refresh)"]
        if let session { issued.append("session:\(session)") }
        return event("lineage.login", flow: flow, ["lineage": lineage, "issued": Self.credentials(issued)])
    }

    /// A refresh presenting `refresh`, forwarded upstream, not answered yet.
    mutating func startRefresh(_ lineage: String?, refresh: String, forward: Bool = true) -> (flow: UInt64, seq: UInt64)
    {
        let started = request(
            "POST", "/oauth/token", role: "refresh", lineage: lineage, credentials: ["refresh:\(refresh)"],
            bodyLength: 60)
        if forward { self.forward(started.flow, body: (60, "refresh:" + refresh)) }
        return started
    }

    /// The refresh answered 200 with new tokens; returns the `lineage.refresh` seq.
    @discardableResult
    mutating func finishRefresh(
        _ flow: UInt64, lineage: String, presented: String, replacing: [String], access: String, refresh: String,
        afterLogout: Bool = false
    ) -> UInt64 {
        deliver(flow, 200)
        return event(
            "lineage.refresh", flow: flow,
            [
                "lineage": lineage, "presented": Self.credentials(["refresh:\(presented)"]),
                "replaced": Self.credentials(replacing),
                "issued": Self.credentials(["access:\(access)", "refresh:\(refresh)"]),
                "after_logout": afterLogout,
            ])
    }

    /// A logout presenting `credentials`; returns the request seq.
    @discardableResult
    mutating func logout(_ lineage: String, credentials: [String]) -> UInt64 {
        let started = request("POST", "/logout", role: "logout", lineage: lineage, credentials: credentials)
        forward(started.flow)
        event("lineage.logout", flow: started.flow, ["lineage": lineage, "presented": Self.credentials(credentials)])
        deliver(started.flow, 200)
        return started.seq
    }

    /// An RFC 7009 revocation presenting `tokens` (`"refresh:r2"`), answered `status`; a 2xx
    /// answer is followed by `lineage.revoked` as the proxy writes it. Returns the request seq.
    @discardableResult
    mutating func revoke(_ lineage: String, tokens: [String], status: Int = 200, afterLogout: Bool) -> UInt64 {
        let started = request(
            "POST", "/oauth/revoke", role: "revoke", lineage: lineage, credentials: tokens, bodyLength: 50)
        forward(started.flow, body: (50, "revoke:" + tokens.joined(separator: ",")))
        deliver(started.flow, status)
        if (200..<300).contains(status) {
            event(
                "lineage.revoked", flow: started.flow,
                ["lineage": lineage, "revoked": Self.credentials(tokens), "after_logout": afterLogout])
        }
        return started.seq
    }

    /// A mark posted by a test.
    @discardableResult
    mutating func mark(_ label: String) -> UInt64 { event("mark", ["label": label]) }

    private func connection(of flow: UInt64) -> UInt64 { flow }

    /// The trace text (header and events, newline-terminated).
    var text: String { lines.joined(separator: "\n") + "\n" }

    /// The trace as `TraceReader` reads it.
    func trace() throws -> Trace { try TraceReader.read(text) }

    /// Reads and checks the trace.
    func check(_ contract: Contract = .default) throws -> ContractReport {
        ContractChecker.check(try trace(), contract: contract)
    }
}
