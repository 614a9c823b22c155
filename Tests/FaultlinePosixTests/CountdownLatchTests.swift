import Testing

@testable import FaultlinePosix

@Suite struct CountdownLatchTests {
    @Test func aLatchOfZeroIsOpen() {
        let latch = CountdownLatch(count: 0)
        #expect(latch.isOpen)
        #expect(latch.wait(timeout: .zero))
    }

    @Test func waitTimesOutWhileCountsRemain() {
        let latch = CountdownLatch(count: 2)
        latch.countDown()
        #expect(!latch.isOpen)
        #expect(!latch.wait(timeout: .milliseconds(20)), "one count is still missing")
    }

    /// Counted down on other threads (event loops, as `ProxyServer.stop` does), while this one waits.
    @Test func waitReturnsOnceOtherThreadsCountedDown() throws {
        let loops = try (0..<3).map { index in
            let loop = try EventLoop(name: "latch-\(index)")
            loop.start()
            return loop
        }
        defer { for loop in loops { loop.shutdown() } }
        let latch = CountdownLatch(count: loops.count)
        for loop in loops { loop.execute { latch.countDown() } }
        #expect(latch.wait(timeout: .seconds(10)))
        latch.countDown()  // past zero: ignored
        #expect(latch.isOpen)
    }

    /// Abandoned from another thread, a wait ends before its deadline and says the count had
    /// not reached zero; a latch abandoned before the wait does not block at all.
    @Test func anAbandonedWaitEndsAtOnceAndSaysTheCountWasNotReached() throws {
        let loop = try EventLoop(name: "latch-abandon")
        loop.start()
        defer { loop.shutdown() }
        let latch = CountdownLatch(count: 2)
        loop.execute { latch.abandon() }
        #expect(!latch.wait(timeout: .seconds(60)), "abandoned, not counted down")
        #expect(!latch.isOpen)
        latch.countDown()
        latch.countDown()
        #expect(latch.wait(timeout: .seconds(60)), "reached zero after all: true even when abandoned")
    }
}
