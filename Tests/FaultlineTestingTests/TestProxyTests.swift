import FaultlineContract
import FaultlineFlow
import FaultlinePosix
import FaultlineProxy
import FaultlineRules
import FaultlineServer
import FaultlineTLS
import FaultlineTesting
import FaultlineTrace
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GETs `url` with a fresh ephemeral URLSession (10 s timeout); returns the status code.
private func get(_ url: URL) async throws -> Int {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 10
    let (_, response) = try await URLSession(configuration: configuration).data(from: url)
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

/// The testing library as a user's test uses it: a proxy per test, a hold waited for and
/// released, a mark, the trace and the contract.
@Suite struct TestProxyTests {
    /// A forced answer needs no upstream, so these tests run without a backend.
    static let rules = TestProxy.Rules.files([
        "gate.json5": """
        { rules: [
            { name: "held", match: { path: "/held" }, actions: [{ hold: { name: "gate" } }, { respond: { status: 200, body: "late" } }] },
            { name: "answer", match: { path: "/answer" }, actions: [{ respond: { status: 204 } }] },
        ] }
        """
    ])

    @Test func holdIsWaitedForAndReleasedWithAResponse() async throws {
        let proxy = try TestProxy.start(upstream: URL(string: "http://127.0.0.1:9")!, rules: Self.rules)
        defer { proxy.stop() }
        let base = try #require(proxy.baseURL)
        async let status = get(base.appendingPathComponent("held"))
        let held = try await proxy.waitForHold("gate", timeout: .seconds(10))
        #expect(held.info.summary.contains("/held"))
        #expect(held.release(status: 418, body: "teapot"))
        #expect(try await status == 418)
        #expect(proxy.holds.isEmpty)
    }

    @Test func aHoldThatReleasedItselfMakesReleaseReturnFalse() async throws {
        let proxy = try TestProxy.start(
            upstream: URL(string: "http://127.0.0.1:9")!,
            rules: .files([
                "self.json5": """
                { rules: [{ name: "self", match: { path: "/self" },
                    actions: [{ hold: { name: "until-go", release: { on: "mark:go" }, timeout: 10 } }, { respond: { status: 204 } }] }] }
                """
            ]))
        defer { proxy.stop() }
        async let status = get(proxy.baseURL!.appendingPathComponent("self"))
        let held = try await proxy.waitForHold("until-go")
        proxy.mark("go")  // as a forwarded logout does for hold-refresh-until-logout
        #expect(try await status == 204)
        #expect(!held.release(), "the hold already ended on its own")
        #expect(!held.fail())
    }

    @Test func waitingForAHoldThatNeverComesTimesOut() async throws {
        let proxy = try TestProxy.start(rules: Self.rules)
        defer { proxy.stop() }
        await #expect(throws: HoldTimeout.self) { try await proxy.waitForHold("nothing", timeout: .milliseconds(100)) }
    }

    @Test func marksAndFlowsReachTheTraceAndTheContractHolds() async throws {
        let proxy = try TestProxy.start(upstream: URL(string: "http://127.0.0.1:9")!, rules: Self.rules)
        defer { proxy.stop() }
        #expect(try await get(proxy.baseURL!.appendingPathComponent("answer")) == 204)
        proxy.mark("cancel job=1", ["by": "test"])
        let trace = try proxy.trace()
        #expect(trace.events.contains { $0.kind.rawValue == "mark" && $0.string("label") == "cancel job=1" })
        #expect(trace.events.contains { $0.kind.rawValue == "rule.fired" })
        // No auth profile: the profile clauses could not run, and the test says it accepts that.
        let skipped = Set(try proxy.checkContract().clausesSkipped.map(\.clause))
        #expect(skipped.contains(.logoutBoundary))
        #expect(try proxy.expectContractHolds(acceptingUnchecked: skipped).passed)
    }

    @Test func theReferenceBackendStartsInProcessBehindTheProxy() async throws {
        let backend = ReferenceBackend()
        _ = try backend.start()
        defer { backend.stop() }
        let url = try #require(backend.baseURL)
        #expect(url.port != nil && url.port != 0)
        let proxy = try TestProxy.start(upstream: url)
        defer { proxy.stop() }
        #expect(try await get(proxy.baseURL!.appendingPathComponent("_backend/stats")) == 200)
        backend.stop()
        #expect(backend.baseURL == nil)
    }

    @Test func environmentPointsChildProcessesAtTheForwardListener() throws {
        let proxy = try TestProxy.start()
        defer { proxy.stop() }
        #expect(proxy.environment["http_proxy"] == proxy.proxyURL.absoluteString)
        #expect(proxy.baseURL == nil)
    }

    @Test func rulesThatDoNotLoadNameTheirPosition() {
        #expect {
            _ = try TestProxy.start(rules: .files(["bad.json5": "{ rules: [{ name: \"x\", mathc: {} }] }"]))
        } throws: { error in
            "\(error)".contains("bad.json5:1:") && "\(error)".contains("did you mean 'match'")
        }
    }

    /// A capture that keeps raw secrets is private from the moment it exists, even over a file
    /// that was readable by others; one with pseudonyms keeps the usual mode.
    @Test func aSavedCaptureWithRawSecretsIsPrivate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "faultline-save-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for secrets in [CaptureOptions.Secrets.keep, .pseudonyms] {
            let proxy = try TestProxy.start(
                upstream: URL(string: "http://127.0.0.1:9")!, rules: Self.rules,
                capture: CaptureOptions(secrets: secrets))
            defer { proxy.stop() }
            #expect(try await get(proxy.baseURL!.appendingPathComponent("answer")) == 204)
            // Stopped first, so that no late event (the connection's close) lands between the
            // save and the comparison below (it did, once, in CI).
            proxy.stop()
            let path = folder.appendingPathComponent("\(secrets).jsonl")
            _ = FileManager.default.createFile(
                atPath: path.path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
            try proxy.saveCapture(to: path)
            let mode = try #require(
                try FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == (secrets == .keep ? 0 : 0o044))
            let saved = try String(contentsOf: path, encoding: .utf8)
            #expect(saved == proxy.traceText && saved.contains("\"capture\""))
        }
    }
}

/// `TestProxy` with TLS: an `https` upstream reached and verified with the anchors a test gives.
/// The upstream is a Faultline server with a TLS listener of its own CA that answers by rule.
@Suite struct TestProxyTLSTests {
    /// An HTTPS (or, with `tls: false`, HTTP) origin on an ephemeral port answering `GET <path>` with 204.
    final class Origin: Sendable {
        let server: ProxyServer
        let authority: CertificateAuthority
        let scheme: String

        init(tls: Bool = true, path: String = "/answer") throws {
            authority = try CertificateAuthority.makeEphemeral()
            scheme = tls ? "https" : "http"
            let (scenario, problems) = RuleSetLoader.loadScenario(
                text:
                    #"{ rules: [{ name: "answer", match: { path: "\#(path)" }, actions: [{ respond: { status: 204 } }] }] }"#,
                file: "origin.json5", profile: nil)
            #expect(problems.isEmpty)
            var configuration = ServerConfiguration(
                listeners: [
                    ListenerConfiguration(
                        address: try SocketAddress(parsing: "127.0.0.1:0"),
                        mode: .reverse(UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 9)), tls: tls)
                ], loopCount: 1)
            if tls { configuration.tls = try ServerTLSConfiguration(authority: authority) }
            // Another Faultline in the path would see the proxy's `Via: 1.1 faultline` as a loop (508).
            configuration.proxy.viaPseudonym = "test-origin"
            server = ProxyServer(
                configuration: configuration, trace: try TraceRecorder(output: .memory, flushInterval: .zero),
                ruleSet: RuleSet(scenarios: scenario.map { [$0] } ?? [], profile: nil))
            try server.start()
        }

        var url: URL { URL(string: "\(scheme)://127.0.0.1:\(server.boundAddresses[0].port)")! }

        /// `authority`'s certificate in a temporary PEM file, for `upstreamTrustAnchorsFile`.
        func anchorsFile(of authority: CertificateAuthority) throws -> URL {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("faultline-anchors-\(UUID()).pem")
            try authority.certificatePEM.write(to: file, atomically: true, encoding: .utf8)
            return file
        }
    }

    @Test func anHTTPSUpstreamIsVerifiedWithTheAnchorsGiven() async throws {
        let origin = try Origin()
        defer { origin.server.stop() }
        let anchors = try origin.anchorsFile(of: origin.authority)
        defer { try? FileManager.default.removeItem(at: anchors) }
        let proxy = try TestProxy.start(upstream: origin.url, tls: .init(upstreamTrustAnchorsFile: anchors.path))
        defer { proxy.stop() }
        #expect(try await get(proxy.baseURL!.appendingPathComponent("answer")) == 204)
        let handshake = try #require(try proxy.trace().events.first { $0.kind.rawValue == "tls.handshake" })
        #expect(handshake.string("side") == "upstream")
        #expect(handshake.bool("verified") == true)
        #expect(proxy.certificateAuthority?.certificatePEM.contains("BEGIN CERTIFICATE") == true)
    }

    @Test func anUpstreamSignedByAnotherCAIsA502() async throws {
        let origin = try Origin()
        defer { origin.server.stop() }
        let anchors = try origin.anchorsFile(of: try CertificateAuthority.makeEphemeral())
        defer { try? FileManager.default.removeItem(at: anchors) }
        let proxy = try TestProxy.start(upstream: origin.url, tls: .init(upstreamTrustAnchorsFile: anchors.path))
        defer { proxy.stop() }
        #expect(try await get(proxy.baseURL!.appendingPathComponent("answer")) == 502)
        let failure = try #require(try proxy.trace().events.first { $0.kind.rawValue == "upstream.error" })
        #expect(failure.string("code") == "upstream-certificate-invalid")
    }

    @Test func anUpstreamPathIsKeptAsAPrefix() async throws {
        let origin = try Origin(tls: false, path: "/api/answer")
        defer { origin.server.stop() }
        let proxy = try TestProxy.start(upstream: origin.url.appendingPathComponent("api"))
        defer { proxy.stop() }
        #expect(try await get(proxy.baseURL!.appendingPathComponent("answer")) == 204)
        let received = try #require(try proxy.trace().events.first { $0.kind.rawValue == "request.received" })
        #expect(received.string("path") == "/answer")
    }

    @Test func anUpstreamURLWithAQueryIsRefused() {
        #expect {
            _ = try TestProxy.start(upstream: URL(string: "http://127.0.0.1:9/api?x=1")!)
        } throws: { error in
            "\(error)".contains("must name only a host, a port and a path prefix")
        }
    }

    @Test func anHTTPSUpstreamNeedsTheTLSParameter() {
        #expect(throws: TestProxy.RulesError.self) {
            _ = try TestProxy.start(upstream: URL(string: "https://127.0.0.1:9")!)
        }
    }

    @Test func eachProxyHasItsOwnCA() throws {
        let first = try TestProxy.start(tls: .init())
        defer { first.stop() }
        let second = try TestProxy.start(tls: .init())
        defer { second.stop() }
        let a = try #require(first.certificateAuthority), b = try #require(second.certificateAuthority)
        #expect(a.sha256Fingerprint != b.sha256Fingerprint)
        #expect(try TestProxy.start().certificateAuthority == nil)
    }
}
