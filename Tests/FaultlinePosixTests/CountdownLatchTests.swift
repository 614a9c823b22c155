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
}
