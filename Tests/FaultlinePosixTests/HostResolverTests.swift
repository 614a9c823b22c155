import FaultlineCore
import Synchronization
import Testing

@testable import FaultlinePosix

@Suite struct HostResolverTests {
    /// Resolves on `loop` and waits for the outcome, checking it arrives on the loop thread.
    static func resolve(
        _ resolver: HostResolver, host: String, port: Int, on loop: EventLoop
    ) throws -> Result<[SocketAddress], ResolveError> {
        let outcome = Promise<Result<[SocketAddress], ResolveError>>()
        let onLoopThread = Promise<Bool>()
        try onLoop(loop) {
            resolver.resolve(
                host: host, port: port, on: loop,
                completion: { addresses in
                    onLoopThread.fulfill(loop.inEventLoop)
                    outcome.fulfill(.success(addresses))
                },
                failure: { error in
                    onLoopThread.fulfill(loop.inEventLoop)
                    outcome.fulfill(.failure(error))
                })
        }
        let result = try outcome.wait(seconds: 30, "resolving \(host)")
        #expect(try onLoopThread.wait())
        return result
    }

    @Test func localhostResolvesOnAWorkerAndAnswersOnTheLoop() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let lookupsOffLoop = Shared<[Bool]>([])
            let resolver = HostResolver(cacheTTL: .seconds(60), workerThreads: 2) { _ in
                lookupsOffLoop.update { $0.append(!loop.inEventLoop) }
            }
            defer { resolver.shutdown() }
            #expect(resolver.cachedAddresses(host: "localhost", port: 80) == nil)
            let addresses = try Self.resolve(resolver, host: "localhost", port: 8080, on: loop).get()
            #expect(addresses.contains(try SocketAddress(parsing: "127.0.0.1:8080")))
            #expect(addresses.allSatisfy { $0.isLoopback && $0.port == 8080 })
            #expect(lookupsOffLoop.value == [true])
            // A second lookup hits the cache: no new getaddrinfo, and the synchronous path knows it.
            #expect(resolver.cachedAddresses(host: "LOCALHOST", port: 443)?.allSatisfy { $0.port == 443 } == true)
            let again = try Self.resolve(resolver, host: "localhost", port: 9, on: loop).get()
            #expect(again.map { $0.withPort(8080) } == addresses)
            #expect(resolver.lookupCount.load(ordering: .relaxed) == 1)
        }
    }

    @Test func ipLiteralsAnswerImmediately() throws {
        try withGroup(loops: 1) { group in
            let resolver = HostResolver()
            defer { resolver.shutdown() }
            #expect(
                resolver.cachedAddresses(host: "127.0.0.1", port: 80) == [try SocketAddress(parsing: "127.0.0.1:80")])
            #expect(resolver.cachedAddresses(host: "[::1]", port: 80) == [try SocketAddress(parsing: "[::1]:80")])
            #expect(resolver.cachedAddresses(host: "::1", port: 80) == [try SocketAddress(parsing: "[::1]:80")])
            let viaResolve = try Self.resolve(resolver, host: "10.0.0.1", port: 5, on: group.loops[0]).get()
            #expect(viaResolve == [try SocketAddress(parsing: "10.0.0.1:5")])
            #expect(resolver.lookupCount.load(ordering: .relaxed) == 0)
            #expect(resolver.workerCount == 0, "a literal started a resolver thread")
        }
    }

    @Test func aBadPortIsAnErrorNotACrash() throws {
        try withGroup(loops: 1) { group in
            let resolver = HostResolver()
            defer { resolver.shutdown() }
            #expect(resolver.cachedAddresses(host: "127.0.0.1", port: 65536) == nil)
            let result = try Self.resolve(resolver, host: "localhost", port: 99999, on: group.loops[0])
            guard case .failure(let error) = result else {
                Issue.record("a port of 99999 resolved: \(result)")
                return
            }
            #expect(error.reason == .failed)
            #expect(resolver.lookupCount.load(ordering: .relaxed) == 0)
        }
    }

    @Test func aBogusNameFails() throws {
        try withGroup(loops: 1) { group in
            let resolver = HostResolver()
            defer { resolver.shutdown() }
            let result = try Self.resolve(resolver, host: "nonexistent.invalid", port: 80, on: group.loops[0])
            guard case .failure(let error) = result else {
                Issue.record("nonexistent.invalid resolved to \(result)")
                return
            }
            #expect(error.isNotFound || error.reason == .temporary)
            #expect(error.host == "nonexistent.invalid")
            #expect(resolver.cachedAddresses(host: "nonexistent.invalid", port: 80) == nil)
        }
    }

    @Test func concurrentLookupsOfOneNameShareOneCall() throws {
        try withGroup(loops: 2) { group in
            let gate = Promise<Void>()
            let started = Promise<Void>()
            let resolver = HostResolver(cacheTTL: .seconds(60), workerThreads: 2) { _ in
                started.fulfill(())
                _ = try? gate.wait(seconds: 10)
            }
            defer { resolver.shutdown() }
            let answers = Shared<[Int]>([])
            for (index, loop) in group.loops.enumerated() {
                try onLoop(loop) {
                    resolver.resolve(
                        host: "localhost", port: 1000 + index, on: loop,
                        completion: { addresses in answers.update { $0.append(addresses[0].port) } },
                        failure: { _ in answers.update { $0.append(-1) } })
                }
            }
            // Both requests are parked before the one lookup is let go.
            try started.wait()
            gate.fulfill(())
            try answers.wait("both answers") { $0.count == 2 }
            #expect(answers.value.sorted() == [1000, 1001])
            #expect(resolver.lookupCount.load(ordering: .relaxed) == 1)
        }
    }

    @Test func cachedAnswersExpire() throws {
        try withGroup(loops: 1) { group in
            let resolver = HostResolver(cacheTTL: .zero, workerThreads: 1)
            defer { resolver.shutdown() }
            _ = try Self.resolve(resolver, host: "localhost", port: 80, on: group.loops[0]).get()
            #expect(resolver.cachedAddresses(host: "localhost", port: 80) == nil)
            _ = try Self.resolve(resolver, host: "localhost", port: 80, on: group.loops[0]).get()
            #expect(resolver.lookupCount.load(ordering: .relaxed) == 2)
        }
    }

    @Test func shutdownFailsQueuedLookups() throws {
        try withGroup(loops: 1) { group in
            let gate = Promise<Void>()
            let started = Promise<Void>()
            let resolver = HostResolver(cacheTTL: .seconds(60), workerThreads: 1) { host in
                if host == "localhost" {
                    started.fulfill(())
                    _ = try? gate.wait(seconds: 10)
                }
            }
            let outcomes = Shared<[String: String]>([:])
            let loop = group.loops[0]
            for host in ["localhost", "ip6-localhost"] {
                try onLoop(loop) {
                    resolver.resolve(
                        host: host, port: 80, on: loop,
                        completion: { _ in outcomes.update { $0[host] = "ok" } },
                        failure: { error in outcomes.update { $0[host] = "\(error.reason)" } })
                }
            }
            try started.wait()
            // The one worker is busy with localhost; the other name is still queued.
            let stopper = Promise<Void>()
            let thread = try ThreadSpawner.spawn(name: "test-stopper") {
                resolver.shutdown()
                stopper.fulfill(())
            }
            // The queued lookup fails while the worker is still busy; then let the worker finish.
            try outcomes.wait("the queued lookup to fail") { $0["ip6-localhost"] != nil }
            #expect(!stopper.isFulfilled)
            gate.fulfill(())
            try stopper.wait()
            ThreadSpawner.join(thread)
            try outcomes.wait("both outcomes") { $0.count == 2 }
            #expect(outcomes.value["localhost"] == "ok")
            #expect(outcomes.value["ip6-localhost"] == "resolver shut down")
        }
    }

    /// Workers start when a lookup finds none idle, never past the limit; an idle one is reused.
    @Test func workersStartOnDemandUpToTheLimit() throws {
        try withGroup(loops: 1) { group in
            let gate = Promise<Void>()
            let parked = Shared<Set<String>>([])
            let resolver = HostResolver(cacheTTL: .zero, workerThreads: 2) { host in
                guard host != "localhost" else { return }
                parked.update { _ = $0.insert(host) }
                _ = try? gate.wait(seconds: 10)
            }
            defer { resolver.shutdown() }
            let loop = group.loops[0]
            #expect(resolver.workerCount == 0)
            _ = try Self.resolve(resolver, host: "localhost", port: 80, on: loop).get()
            _ = try Self.resolve(resolver, host: "localhost", port: 80, on: loop).get()
            #expect(resolver.workerCount == 1, "an idle worker was not reused")
            // Three held lookups at once: the idle worker takes one, a second starts, the third waits.
            let outcomes = Shared<Int>(0)
            for host in ["ip6-localhost", "ip6-loopback", "ip6-allnodes"] {
                try onLoop(loop) {
                    resolver.resolve(
                        host: host, port: 80, on: loop, completion: { _ in outcomes.update { $0 += 1 } },
                        failure: { _ in outcomes.update { $0 += 1 } })
                }
            }
            try parked.wait("two lookups held") { $0.count == 2 }
            #expect(resolver.workerCount == 2)
            gate.fulfill(())
            try outcomes.wait("three outcomes") { $0 == 3 }
            #expect(resolver.workerCount == 2)
        }
    }
}
