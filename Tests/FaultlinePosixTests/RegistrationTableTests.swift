import Testing

@testable import FaultlinePosix

@Suite struct RegistrationTableTests {
    final class Dummy: SelectableHandler {
        func handleReadiness(_ events: ReadinessEvents) {}
        func closeForLoopShutdown() {}
    }

    @Test func aReusedDescriptorDoesNotReceiveTheOldOwnersEvents() throws {
        var table = RegistrationTable()
        let first = Dummy()
        let old = table.insert(fd: 7, handler: first)
        #expect(table.handler(for: old) === first)
        let removed = table.remove(old)
        #expect(removed)
        let second = Dummy()
        let new = table.insert(fd: 7, handler: second)
        #expect(new.fd == old.fd)
        #expect(new.generation != old.generation)
        // An event read from the kernel before the close carries the old token.
        #expect(table.handler(for: old) == nil)
        #expect(table.handler(for: new) === second)
        let removedAgain = table.remove(old)
        #expect(!removedAgain)
        #expect(table.count == 1)
    }

    @Test func tokensRoundTripThroughTheKernelWord() {
        let token = RegistrationToken(fd: 123_456, generation: 0xDEAD_BEEF)
        #expect(RegistrationToken(rawValue: token.rawValue) == token)
        #expect(token.rawValue >> 32 == 0xDEAD_BEEF)
    }

    @Test func generationsSkipZero() {
        var table = RegistrationTable()
        for fd in Int32(0)..<100 {
            let token = table.insert(fd: fd, handler: Dummy())
            #expect(token.generation != 0)
        }
        #expect(table.allHandlers.count == 100)
    }
}
