import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct TerminationSignalsTests {
    /// On a thread of its own (signal masks are per thread), block, send SIGTERM to that very
    /// thread, and wait for it: the signal is consumed, not delivered, so the test process lives.
    @Test func waitReturnsABlockedSignal() throws {
        let received = Promise<Int32>()
        let thread = try ThreadSpawner.spawn(name: "test-signals") {
            TerminationSignals.block()
            pthread_kill(pthread_self(), SIGTERM)
            received.fulfill(TerminationSignals.wait())
        }
        defer { ThreadSpawner.join(thread) }
        #expect(try received.wait() == SIGTERM)
    }

    @Test func sigpipeIsIgnoredAfterBlock() throws {
        let handler = Promise<Bool>()
        let thread = try ThreadSpawner.spawn(name: "test-sigpipe") {
            TerminationSignals.block()
            var old = sigaction()
            sigaction(SIGPIPE, nil, &old)
            #if canImport(Glibc)
            let ignored = unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == 1
            #else
            let ignored = unsafeBitCast(old.__sigaction_u.__sa_handler, to: Int.self) == 1
            #endif
            handler.fulfill(ignored)
        }
        defer { ThreadSpawner.join(thread) }
        #expect(try handler.wait())
    }
}
