import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import Testing

@testable import FaultlineServer

/// `ControlGate`'s pure parts: which `Host` values a listener answers to, the cookie and
/// `Origin` readers.
@Suite struct ControlGateTests {
    private func gate(_ address: String) throws -> ControlGate {
        ControlGate(listenerAddress: try SocketAddress(parsing: address))
    }

    @Test func aLoopbackListenerAnswersToLoopbackNamesOnly() throws {
        let gate = try gate("127.0.0.1:9090")
        for host in ["127.0.0.1:9090", "127.0.0.1", "localhost", "LocalHost:1", "[::1]:9090", "[::1]", "127.9.9.9:80"] {
            #expect(gate.allowsHost(host), "\(host)")
        }
        for host in ["example.com", "localhost.example.com", "10.0.0.5:9090", "[::2]:9090", "", ":9090", "[::1"] {
            #expect(!gate.allowsHost(host), "\(host)")
        }
        #expect(gate.allowsHost(nil), "HTTP/1.0 without Host is not a browser")
    }

    @Test func aListenerOnAnotherAddressAlsoAnswersToThatAddress() throws {
        let gate = try gate("10.0.0.5:9090")
        #expect(gate.allowsHost("10.0.0.5:9090") && gate.allowsHost("localhost"))
        #expect(!gate.allowsHost("10.0.0.6:9090") && !gate.allowsHost("attacker.example"))
        let v6 = try self.gate("[fd00::5]:9090")
        #expect(v6.allowsHost("[fd00::5]:9090") && !v6.allowsHost("[fd00::6]:9090"))
    }

    @Test func aWildcardListenerCannotKnowItsNamesAndChecksNone() throws {
        #expect(try gate("0.0.0.0:9090").allowsHost("my-laptop.local:9090"))
        #expect(try gate("[::]:9090").allowsHost("anything"))
    }

    @Test func cookiesOriginsAndTheCookieName() {
        let headers: HTTPHeaders = [
            ("Cookie", "a=1; faultline_ui_9090=s3cr3t; b=2"), ("Host", "127.0.0.1:9090"),
            ("Origin", "http://127.0.0.1:9090"),
        ]
        #expect(ControlGate.cookie("faultline_ui_9090", in: headers) == "s3cr3t")
        #expect(ControlGate.cookie("faultline_ui", in: headers) == nil)
        #expect(ControlGate.isSameOrigin(headers))
        #expect(!ControlGate.isSameOrigin([("Host", "127.0.0.1:9090"), ("Origin", "https://127.0.0.1:9090")]))
        #expect(!ControlGate.isSameOrigin([("Host", "127.0.0.1:9090"), ("Origin", "null")]))
        #expect(!ControlGate.isSameOrigin([("Host", "127.0.0.1:9090")]))
        #expect(ControlGate.sessionCookieName(host: "127.0.0.1:9090") == "faultline_ui_9090")
        #expect(ControlGate.sessionCookieName(host: "[::1]:8") == "faultline_ui_8")
        #expect(ControlGate.sessionCookieName(host: "[::1]") == "faultline_ui")
        #expect(ControlGate.sessionCookieName(host: nil) == "faultline_ui")
    }

    @Test func ticketsExpireAndSessionsAreBounded() throws {
        let sessions = UISessions()
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        let ticket = try sessions.issueTicket(now: start)
        let late = start.advanced(by: UISessions.ticketLifetime)
        #expect(try sessions.redeem(ticket, now: late) == nil, "expired")
        #expect(try sessions.redeem(ticket, now: start) == nil, "and spent by the failed try")
        var cookies: [String] = []
        for _ in 0...UISessions.maximumSessions {
            let fresh = try sessions.issueTicket(now: start)
            cookies.append(try #require(try sessions.redeem(fresh, now: start)))
        }
        #expect(!sessions.isSession(cookies[0]), "the oldest session went")
        #expect(cookies.dropFirst().allSatisfy { sessions.isSession($0) })
        #expect(!sessions.isSession(""))
    }
}
