import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineServer

/// The web UI's side of the control listener: tickets and the session cookie, the Origin and
/// Host checks, the page, and the event stream with its history and dropped-line counts.
@Suite struct ControlUITests {
    /// One answer read off the wire.
    private struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: String
    }

    private static func get(
        _ harness: ControlHarness, _ target: String, _ extra: String = "", method: String = "GET", body: String = ""
    ) throws -> Answer {
        let port = harness.controlAddress.port
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)"
        if method != "GET" { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + body
        let raw = try RawControlConnection(address: harness.controlAddress).exchange(text)
        guard let split = raw.range(of: "\r\n\r\n") else { throw HarnessError("no head in \(raw)") }
        let lines = raw[..<split.lowerBound].split(separator: "\r\n")
        guard let status = Int(lines[0].split(separator: " ")[1]) else { throw HarnessError("no status") }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers.add(name: String(parts[0]), value: String(parts[1].drop { $0 == " " }))
        }
        return Answer(status: status, headers: headers, body: String(raw[split.upperBound...]))
    }

    /// Logs in as `faultline ui` and a browser would; returns the `Cookie` field to send.
    private static func login(_ harness: ControlHarness) throws -> String {
        let path = try harness.call("POST", "/v1/ui/tickets").json?.string("/path") ?? ""
        let answer = try get(harness, path)
        #expect(answer.status == 303)
        #expect(answer.headers.first(name: "location") == "/ui/")
        let cookie = answer.headers.first(name: "set-cookie") ?? ""
        return "Cookie: " + String(cookie.prefix { $0 != ";" }) + "\r\n"
    }

    private static func origin(_ harness: ControlHarness) -> String {
        "Origin: http://127.0.0.1:\(harness.controlAddress.port)\r\n"
    }

    @Test func aTicketBuysOneSessionCookieOnce() throws {
        try withControl { harness in
            let ticket = try #require(try harness.call("POST", "/v1/ui/tickets").json?.string("/ticket"))
            #expect(ticket.count == 64)
            let first = try Self.get(harness, "/ui/login?ticket=\(ticket)")
            #expect(first.status == 303)
            let cookie = try #require(first.headers.first(name: "set-cookie"))
            let port = harness.controlAddress.port
            #expect(cookie.hasPrefix("faultline_ui_\(port)="))
            #expect(cookie.hasSuffix("; Path=/ui; HttpOnly; SameSite=Strict"))
            #expect(first.headers.first(name: "referrer-policy") == "no-referrer")

            let again = try Self.get(harness, "/ui/login?ticket=\(ticket)")
            #expect(again.status == 403)
            #expect(again.headers.first(name: "set-cookie") == nil)
            #expect(try Self.get(harness, "/ui/login?ticket=\(String(repeating: "0", count: 64))").status == 403)
            #expect(try Self.get(harness, "/ui/login").status == 403)
        }
    }

    @Test func everythingUnderUINeedsTheSessionCookie() throws {
        try withControl { harness in
            #expect(try Self.get(harness, "/ui/").status == 401)
            #expect(try Self.get(harness, "/ui/app.js").status == 401)
            let api = try Self.get(harness, "/ui/api/v1/holds")
            #expect(api.status == 401)
            #expect(api.body.contains("faultline ui"))
            #expect(
                try Self.get(harness, "/ui/", "Cookie: faultline_ui_\(harness.controlAddress.port)=forged\r\n").status
                    == 401)

            let cookie = try Self.login(harness)
            let page = try Self.get(harness, "/ui/", cookie)
            #expect(page.status == 200)
            #expect(page.headers.first(name: "content-type") == "text/html; charset=utf-8")
            #expect(page.headers.first(name: "content-security-policy")?.contains("script-src 'self'") == true)
            #expect(page.body.contains("<script src=\"/ui/app.js\""))
            #expect(
                try Self.get(harness, "/ui/app.js", cookie).headers.first(name: "content-type")
                    == "text/javascript; charset=utf-8")
            #expect(try Self.get(harness, "/ui/app.css", cookie).status == 200)
            #expect(try Self.get(harness, "/ui/nothing.js", cookie).status == 404)
            #expect(try Self.get(harness, "/ui/api/v1/holds", cookie).status == 200)
            // The cookie is for the UI only: the API proper still wants the bearer token.
            #expect(try Self.get(harness, "/v1/holds", cookie).status == 401)
            // Pages and the login are read, never posted to: 405 with the method they take.
            for target in ["/ui/", "/ui/login?ticket=x"] {
                let posted = try Self.get(harness, target, cookie + Self.origin(harness), method: "POST")
                #expect(posted.status == 405)
                #expect(posted.headers.first(name: "allow") == "GET")
                #expect(posted.body.contains("does not take POST; it takes GET"))
            }
        }
    }

    @Test func aStateChangingUICallNeedsThePagesOwnOrigin() throws {
        try withControl { harness in
            let cookie = try Self.login(harness)
            let disable = "/ui/api/v1/rules/demo/teapot/disable"
            #expect(try Self.get(harness, disable, cookie, method: "POST").status == 403)
            #expect(
                try Self.get(harness, disable, cookie + "Origin: http://evil.example\r\n", method: "POST").status == 403
            )
            #expect(
                try Self.get(harness, disable, cookie + "Origin: http://127.0.0.1:1\r\n", method: "POST").status == 403)
            // Nothing changed: the teapot rule still answers.
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)
            #expect(try Self.get(harness, disable, cookie + Self.origin(harness), method: "POST").status == 200)
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status != 418)
            // Reading needs no Origin.
            #expect(try Self.get(harness, "/ui/api/v1/rules", cookie).status == 200)
        }
    }

    @Test func aForeignHostIsRefusedWhateverTheCredentials() throws {
        try withControl { harness in
            let bearer = "Authorization: Bearer \(ControlHarness.token)\r\n"
            let raw = RawControlConnection(address: harness.controlAddress)
            let port = harness.controlAddress.port
            for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "10.1.2.3:\(port)", ""] {
                let answer = try raw.exchange("GET /v1/health HTTP/1.1\r\nHost: \(host)\r\n\(bearer)\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 403"), "Host '\(host)'")
            }
            // A malformed Host never gets that far (RFC 9112 §3.2: 400).
            #expect(
                try raw.exchange("GET /v1/health HTTP/1.1\r\nHost: [::1\r\n\(bearer)\r\n").hasPrefix("HTTP/1.1 400"))
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "127.1.2.3"] {
                let answer = try raw.exchange("GET /v1/health HTTP/1.1\r\nHost: \(host)\r\n\(bearer)\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 200"), "Host '\(host)'")
            }
        }
    }

    @Test func theEventStreamGivesTheRecentPastThenLiveLinesWithoutDuplicates() throws {
        try withControl { harness in
            for label in ["one", "two"] { try harness.call("POST", "/v1/marks", json: #"{"label": "\#(label)"}"#) }
            let cookie = try Self.login(harness)
            let stream = try TraceStreamClient(
                address: harness.controlAddress, target: "/ui/api/v1/events",
                headers: "Host: 127.0.0.1:\(harness.controlAddress.port)\r\n" + cookie)
            #expect(try stream.readHead().status == 200)
            let history = try stream.readLines { $0.last?.hasPrefix(#"{"ui":"live""#) == true }
            #expect(history.first?.hasPrefix(#"{"faultline_trace""#) == true)
            #expect(history.contains { $0.contains(#""label":"one""#) })
            #expect(history.contains { $0.contains(#""label":"two""#) })
            try harness.call("POST", "/v1/marks", json: #"{"label": "three"}"#)
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)
            let live = try stream.readLines { $0.contains { $0.contains(#""event":"response.delivered""#) } }
            #expect(live.first?.contains(#""label":"three""#) == true)
            // History and live lines together: every seq once, in order, no gap.
            let seqs = (history + live).compactMap { TraceLines.seq(of: Array($0.utf8)) }
            #expect(seqs == Array(1...UInt64(seqs.count)))
        }
    }

    @Test func aUIClientThatFallsBehindLosesCountedLinesNotTheStream() throws {
        // A backlog smaller than one line: every line overflows it and is dropped.
        let harness = try ControlHarness(uiBacklog: 64)
        defer { harness.stop() }
        let cookie = try Self.login(harness)
        let stream = try TraceStreamClient(
            address: harness.controlAddress, target: "/ui/api/v1/events",
            headers: "Host: 127.0.0.1:\(harness.controlAddress.port)\r\n" + cookie)
        _ = try stream.readHead()
        _ = try stream.readLines { $0.last?.hasPrefix(#"{"ui":"live""#) == true }
        for index in 0..<3 { try harness.call("POST", "/v1/marks", json: #"{"label": "mark-\#(index)"}"#) }
        var dropped = 0
        let notices = try stream.readLines { lines in
            dropped = lines.compactMap { line -> Int? in
                guard line.hasPrefix(#"{"ui":"dropped","count":"#) else { return nil }
                return Int(line.dropFirst(#"{"ui":"dropped","count":"#.count).dropLast())
            }.reduce(0, +)
            return dropped >= 3
        }
        #expect(dropped == 3)
        #expect(!notices.contains { $0.contains("mark-") })
        // The stream goes on: the subscriber is still there.
        #expect(harness.server.trace.observerCount == 1)
    }
}
