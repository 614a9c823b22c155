import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineRules
import FaultlineTLS
import FaultlineTrace
import Testing

/// The session's side of TLS interception: when it answers `CONNECT` early, how it classifies
/// the bytes that follow, and what it hands the driver.
@Suite struct InterceptionTests {
    /// A real ClientHello (OpenSSL's), naming `serverName` and offering h2 and HTTP/1.1.
    static func clientHello(serverName: String) throws -> [UInt8] {
        let connection = try TLSConnection.client(
            context: try TLSClientContext(verify: false), serverName: serverName, alpn: ["h2", "http/1.1"])
        return connection.takeCiphertext()
    }

    static func intercepting(
        _ policy: InterceptionPolicy = InterceptionPolicy(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Playbook {
        Playbook(configure: { $0.interception = policy }, sourceLocation: sourceLocation)
    }

    /// Intercepting, with a 700 ms wait for a silent client and 3 s for a started ClientHello.
    static func withDeadlines(sourceLocation: SourceLocation = #_sourceLocation) -> Playbook {
        Playbook(
            configure: {
                $0.interception = InterceptionPolicy()
                $0.silentClientTunnelDelay = .milliseconds(700)
                $0.clientHelloTimeout = .seconds(3)
            }, sourceLocation: sourceLocation)
    }

    static func interception(in log: [ProxyAction]) -> TLSInterception? {
        for action in log {
            if case .interceptTLS(let interception) = action { return interception }
        }
        return nil
    }

    @Test func connectIsAnsweredBeforeConnectingAndTheClientHelloIsHandedOver() throws {
        let hello = try Self.clientHello(serverName: "api.example.test")
        // Every split point: the verdict must not depend on how the bytes arrive.
        for split in 0...hello.count {
            var play = Self.intercepting()
            play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
            #expect(play.takeClientText() == "HTTP/1.1 200 Connection established\r\n\r\n")
            #expect(!play.connectPending, "nothing is contacted before the ClientHello is read")
            play.expect([Lines.idle, "cancel clientIdle", "arm clientIdle 1s"])
            // The first bytes start the ClientHello deadline; the whole hello hands it over.
            let started = ["arm clientIdle 10s"]
            let handover = [
                "cancel clientIdle",
                "intercept tls tcp://api.example.test:443 sni=api.example.test alpn=h2,http/1.1 bytes=\(hello.count)",
            ]
            play.client(Array(hello[..<split]))
            var handedOver = play.expect(split == 0 ? [] : split < hello.count ? started : started + handover)
            play.client(Array(hello[split...]))
            handedOver += play.expect(split == 0 ? started + handover : split < hello.count ? handover : [])
            let interception = try #require(Self.interception(in: handedOver), "split at \(split)")
            #expect(interception.serverName == "api.example.test")
            #expect(interception.offeredALPN == ["h2", "http/1.1"])
            #expect(interception.clientBytes == hello)
            #expect(interception.target == UpstreamEndpoint(scheme: "tcp", host: "api.example.test", port: 443))
            #expect(interception.certificateHost == "api.example.test")
            #expect(play.session.isClosed, "the session that read CONNECT is done")
            #expect(!play.connectPending)
        }
    }

    @Test func anIgnoredSNINameIsTunnelledWithTheHelloBytes() throws {
        let hello = try Self.clientHello(serverName: "pinned.bank.test")
        var play = Self.intercepting(InterceptionPolicy(ignore: [HostGlob("**.bank.test")]))
        // The CONNECT names an address; only the SNI name says the host is ignored.
        play.client("CONNECT 10.1.2.3:443 HTTP/1.1\r\nHost: 10.1.2.3:443\r\n\r\n")
        #expect(play.takeClientText().hasPrefix("HTTP/1.1 200 "))
        play.client(hello)
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 1s", "arm clientIdle 10s", "cancel clientIdle",
            "connect tcp://10.1.2.3:443",
        ])
        play.connected()
        #expect(play.takeClientText() == "", "the 200 is not sent twice")
        #expect(play.takeUpstreamText() == String(decoding: hello, as: UTF8.self), "the ClientHello goes up unchanged")
        let opened = try #require(try play.events().first { $0.kind == .tunnelOpened })
        #expect(opened.bool("intercepted") == false)
        #expect(opened.string("reason") == "ignored")
    }

    @Test func anIgnoredConnectHostIsTunnelledTheClassicWay() throws {
        var play = Self.intercepting(InterceptionPolicy(ignore: [HostGlob("*.apple.com")]))
        play.client("CONNECT push.apple.com:443 HTTP/1.1\r\nHost: push.apple.com:443\r\n\r\n")
        #expect(play.takeClientText() == "", "no early answer: the target is contacted first")
        play.expect([Lines.idle, "cancel clientIdle", "connect tcp://push.apple.com:443"])
        play.connected()
        #expect(play.takeClientText() == "HTTP/1.1 200 Connection established\r\n\r\n")
        let opened = try #require(try play.events().first { $0.kind == .tunnelOpened })
        #expect(opened.string("reason") == "ignored")
    }

    @Test func onlyTheInterceptListIsOpenedUp() throws {
        let policy = InterceptionPolicy(intercept: [HostGlob("api.example.test")], ignore: [])
        #expect(policy.intercepts("api.example.test"))
        #expect(policy.intercepts("API.example.test."), "host names compare case-insensitively")
        #expect(!policy.intercepts("cdn.example.test"))
        #expect(InterceptionPolicy().intercepts("anything.test"), "no list: every host")
        let both = InterceptionPolicy(intercept: [HostGlob("**.example.test")], ignore: [HostGlob("auth.example.test")])
        #expect(both.intercepts("api.example.test"))
        #expect(!both.intercepts("auth.example.test"), "ignore wins")
    }

    @Test func bytesThatAreNotTLSAreTunnelled() throws {
        var play = Self.intercepting()
        play.client(
            "CONNECT legacy.test:80 HTTP/1.1\r\nHost: legacy.test:80\r\n\r\nGET / HTTP/1.1\r\nHost: legacy.test\r\n\r\n"
        )
        #expect(play.takeClientText().hasPrefix("HTTP/1.1 200 "))
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 10s", "cancel clientIdle", "connect tcp://legacy.test:80",
        ])
        play.connected()
        #expect(play.takeUpstreamText() == "GET / HTTP/1.1\r\nHost: legacy.test\r\n\r\n")
        play.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        #expect(play.takeClientText() == "HTTP/1.1 204 No Content\r\n\r\n")
        let opened = try #require(try play.events().first { $0.kind == .tunnelOpened })
        #expect(opened.string("reason") == "not-tls")
    }

    /// After the early answer the classified bytes wait with the `CONNECT` while its target is
    /// connected; what the client sends meanwhile, and its FIN, follow them up the tunnel.
    @Test func bytesAfterTheClassifiedOnesFollowThemUpTheTunnel() throws {
        var play = Self.intercepting()
        play.client("CONNECT legacy.test:80 HTTP/1.1\r\nHost: legacy.test:80\r\n\r\nGET / HTTP/1.1\r\n")
        #expect(play.takeClientText() == "HTTP/1.1 200 Connection established\r\n\r\n")
        play.client("Host: legacy.test\r\n\r\n")
        play.clientEOF()
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 10s", "cancel clientIdle", "connect tcp://legacy.test:80",
        ])
        #expect(play.takeUpstreamText() == "", "nothing goes up before the tunnel opens")
        play.connected()
        #expect(play.takeClientText() == "", "the 200 is not sent twice")
        let request = "GET / HTTP/1.1\r\nHost: legacy.test\r\n\r\n"
        #expect(play.takeUpstreamText() == request)
        play.expect(["shutdown upstream write"])
        play.upstreamEOF()
        play.expect(["shutdown client write", "close upstream", "close client after flush"])
        let closed = try #require(try play.events().last)
        #expect(closed.int("bytes_from_client") == Int64(request.utf8.count))
        #expect(try play.eventKinds().filter { $0 == "response.delivered" }.count == 1)
    }

    @Test func aClientThatLeavesWhileItsHelloIsReadAbortsTheFlow() throws {
        var play = Self.intercepting()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n\u{16}\u{03}")
        play.clientClosed()
        // Nothing was connected; the close names the flow's upstream all the same, as for a
        // `CONNECT` being connected.
        play.expect([Lines.idle, "cancel clientIdle", "arm clientIdle 10s", "close upstream"])
        #expect(play.session.isClosed)
        #expect(!play.connectPending)
        let aborted = try #require(try play.events().first { $0.kind == .flowAborted })
        #expect(aborted.string("reason") == "client closed the connection")
    }

    @Test func aClientThatLeavesWhileItsSilentTunnelConnectsAbortsIt() throws {
        var play = Self.withDeadlines()
        play.client("CONNECT git.example.test:22 HTTP/1.1\r\nHost: git.example.test:22\r\n\r\n")
        play.fire(.clientIdle)
        play.clientClosed()
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 0.7s", "cancel clientIdle",
            "connect tcp://git.example.test:22", "close upstream",
        ])
        #expect(play.session.isClosed)
        #expect(try play.eventKinds().contains("flow.aborted"))
        play.connected()
        play.expect(["close upstream"])
        #expect(try play.events().first { $0.kind == .tunnelOpened } == nil)
    }

    @Test func anUnreachableTargetAfterTheEarlyAnswerClosesWithoutAnHTTPError() throws {
        var play = Self.intercepting()
        play.client("CONNECT gone.test:443 HTTP/1.1\r\nHost: gone.test:443\r\n\r\n\u{0}\u{1}not tls")
        _ = play.takeClientText()
        play.connectFailed(.connectRefused("gone.test:443", "connection refused"))
        #expect(play.takeClientText() == "", "the client already has its 200: a 502 would be read as tunnel bytes")
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 10s", "cancel clientIdle", "connect tcp://gone.test:443",
            "cancel clientIdle", "close client after flush",
        ])
        #expect(try play.eventKinds().contains("upstream.error"))
    }

    @Test func aClientThatLeavesBeforeItsHelloEndsTheFlow() throws {
        var play = Self.intercepting()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n\u{16}\u{03}")
        play.clientEOF()
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 10s", "cancel clientIdle", "close client after flush",
        ])
        #expect(!play.connectPending)
        #expect(try play.eventKinds().contains("flow.aborted"))
    }

    @Test func aClientHelloThatNeverCompletesTimesOut() throws {
        var play = Self.withDeadlines()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n\u{16}\u{03}\u{01}")
        play.expect([Lines.idle, "cancel clientIdle", "arm clientIdle 3s"])
        play.fire(.clientIdle)
        play.expect(["cancel clientIdle", "close client after flush"])
        let failed = try #require(try play.events().first { $0.kind == .tlsFailed })
        #expect(failed.string("code") == "handshake-timeout")
        #expect(failed.string("side") == "client")
    }

    @Test func aClientThatStaysSilentIsTunnelledForTheServerToSpeakFirst() throws {
        var play = Self.withDeadlines()
        play.client("CONNECT git.example.test:22 HTTP/1.1\r\nHost: git.example.test:22\r\n\r\n")
        play.expect([Lines.idle, "cancel clientIdle", "arm clientIdle 0.7s"])
        #expect(!play.connectPending)
        play.fire(.clientIdle)
        play.expect(["cancel clientIdle", "connect tcp://git.example.test:22"])
        play.connected()
        play.upstream("SSH-2.0-OpenSSH_9.2\r\n")
        #expect(play.takeClientText() == "HTTP/1.1 200 Connection established\r\n\r\nSSH-2.0-OpenSSH_9.2\r\n")
        let opened = try #require(try play.events().first { $0.kind == .tunnelOpened })
        #expect(opened.string("reason") == "client-silent")
        #expect(try play.events().first { $0.kind == .tlsFailed } == nil)
    }

    @Test func theFirstBytesStartTheClientHelloDeadline() throws {
        var play = Self.withDeadlines()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
        play.expect([Lines.idle, "cancel clientIdle", "arm clientIdle 0.7s"])
        play.client("\u{16}\u{03}\u{01}")
        play.expect(["arm clientIdle 3s"])
        play.client("\u{00}")
        play.expectNothing()  // armed once, not per read
    }

    @Test func aCompleteClientHelloDisarmsTheDeadline() throws {
        var play = Self.intercepting()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
        play.client(try Self.clientHello(serverName: "api.example.test"))
        play.expect([
            Lines.idle, "cancel clientIdle", "arm clientIdle 1s", "arm clientIdle 10s", "cancel clientIdle",
            "intercept tls tcp://api.example.test:443 sni=api.example.test alpn=h2,http/1.1 bytes=336",
        ])
    }

    @Test func withoutInterceptionConnectIsTunnelledAsBefore() throws {
        var play = Playbook()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
        #expect(play.takeClientText() == "")
        play.expect([Lines.idle, "cancel clientIdle", "connect tcp://api.example.test:443"])
        play.connected()
        let opened = try #require(try play.events().first { $0.kind == .tunnelOpened })
        #expect(opened.string("reason") == nil, "no interception, nothing to explain")
    }
}
