import FaultlineBackend
import FaultlinePosix
import FaultlineTestProxy

extension Faultline {
    /// The event loops every scope's reference backend runs on: a backend is idle between a
    /// test's requests, so one pair of loops for the process serves every test running in
    /// parallel, instead of a thread per test. Made on first use, never shut down (it outlives
    /// every test); nil when the loops could not be made, and each backend starts its own then.
    static let backendLoops: EventLoopGroup? = try? EventLoopGroup(loopCount: 2, namePrefix: "faultline-test-backend")

    /// Starts what `configuration` asks for: the upstream (the reference backend, a URL, a
    /// replayed capture, none) and a proxy in front of it. Nothing is left running when it throws.
    static func start(_ configuration: Configuration) throws -> Faultline {
        let rules = configuration.rules
        let tls = configuration.tls
        switch configuration.upstream {
        case .reference:
            let backend = ReferenceBackend()
            if let loops = backendLoops { try backend.start(on: loops) } else { try backend.start() }
            do {
                // A running backend always has an address; `!` states it.
                let proxy = try TestProxy.start(upstream: backend.baseURL!, rules: rules, tls: tls)
                return Faultline(proxy: proxy, backend: backend, configuration: configuration)
            } catch {
                backend.stop()
                throw error
            }
        case .url(let upstream):
            let proxy = try TestProxy.start(upstream: upstream, rules: rules, tls: tls)
            return Faultline(proxy: proxy, backend: nil, configuration: configuration)
        case .replay(let file, let origin, let settings):
            let proxy = try TestProxy.start(replaying: file, origin: origin, rules: rules, settings: settings, tls: tls)
            return Faultline(proxy: proxy, backend: nil, configuration: configuration)
        case .none:
            let proxy = try TestProxy.start(rules: rules, tls: tls)
            return Faultline(proxy: proxy, backend: nil, configuration: configuration)
        }
    }

    /// Stops the proxy, then the backend. Safe to call twice.
    public func stop() {
        proxy.stop()
        backend?.stop()
    }

    /// Runs `body` with a fresh scope as ``current``; when it returns, runs `check` (the
    /// contract, unless the configuration turns that off); when it throws (a failed `#require`,
    /// a cancelled test), runs `failed` with the error. The proxy and the backend are stopped on
    /// every path before this returns or rethrows, so the test leaves no port, thread or
    /// descriptor behind.
    static func run(
        _ configuration: Configuration, check: (Faultline) throws -> Void, failed: (Faultline, any Error) -> Void,
        _ body: (Faultline) async throws -> Void
    ) async throws {
        let scope = try start(configuration)
        defer { scope.stop() }
        do {
            try await $current.withValue(scope) { try await body(scope) }
        } catch {
            failed(scope, error)
            throw error
        }
        if configuration.checksContract { try check(scope) }
    }
}
