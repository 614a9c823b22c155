import FaultlineCore
import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct EventLoopTests {
    @Test func executeFromAnotherThreadRunsOnTheLoopThread() throws {
        let loop = try EventLoop(name: "test-exec")
        loop.start()
        defer { loop.shutdown() }
        #expect(!loop.inEventLoop)
        let testThread = ThreadSpawner.currentThreadID
        let promise = Promise<(Bool, UInt)>()
        loop.execute { promise.fulfill((loop.inEventLoop, ThreadSpawner.currentThreadID)) }
        let (inLoop, thread) = try promise.wait()
        #expect(inLoop)
        #expect(thread != testThread)
    }

    @Test func tasksFromOneThreadRunInOrder() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let order = Shared<[Int]>([])
            for index in 0..<1000 {
                loop.execute { order.update { $0.append(index) } }
            }
            try order.wait("1000 tasks") { $0.count == 1000 }
            #expect(order.value == Array(0..<1000))
        }
    }

    @Test func tasksQueuedBeforeStartRunOnceStarted() throws {
        let loop = try EventLoop(name: "test-early")
        let promise = Promise<Bool>()
        loop.execute { promise.fulfill(loop.inEventLoop) }
        loop.start()
        defer { loop.shutdown() }
        #expect(try promise.wait())
    }

    @Test func timersFireInDeadlineOrder() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let fired = Shared<[Int]>([])
            try onLoop(loop) {
                for delay in [30, 10, 20, 0] {
                    loop.scheduleTimer(after: .milliseconds(delay)) { fired.update { $0.append(delay) } }
                }
            }
            try fired.wait("4 timers") { $0.count == 4 }
            #expect(fired.value == [0, 10, 20, 30])
        }
    }

    @Test func timersDoNotFireEarly() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let elapsed = Promise<Duration>()
            try onLoop(loop) {
                let start = MonotonicInstant.now()
                loop.scheduleTimer(after: .milliseconds(20)) { elapsed.fulfill(start.duration(to: .now())) }
            }
            #expect(try elapsed.wait() >= .milliseconds(20))
        }
    }

    @Test func aCancelledTimerDoesNotFire() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let fired = Shared<[String]>([])
            try onLoop(loop) {
                let early = loop.scheduleTimer(after: .milliseconds(5)) { fired.update { $0.append("cancelled") } }
                loop.scheduleTimer(after: .milliseconds(15)) { fired.update { $0.append("kept") } }
                loop.cancelTimer(early)
            }
            // The kept timer's deadline is after the cancelled one's, so once it fired the
            // cancelled one had every chance to.
            try fired.wait("the kept timer") { $0.contains("kept") }
            #expect(fired.value == ["kept"])
        }
    }

    @Test func aTimerCanCancelAnotherDueInTheSameRound() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let fired = Shared<[String]>([])
            try onLoop(loop) {
                // Both are due by the time the loop looks; the first cancels the second.
                nonisolated(unsafe) var second: TimerHandle?
                loop.scheduleTimer(after: .zero) {
                    fired.update { $0.append("first") }
                    if let second { loop.cancelTimer(second) }
                    loop.scheduleTimer(after: .milliseconds(5)) { fired.update { $0.append("done") } }
                }
                second = loop.scheduleTimer(after: .zero) { fired.update { $0.append("second") } }
            }
            try fired.wait("the last timer") { $0.contains("done") }
            #expect(fired.value == ["first", "done"])
        }
    }

    @Test func shutdownJoinsTheThreadAndRejectsLaterTasks() throws {
        let loop = try EventLoop(name: "test-join")
        loop.start()
        // Make sure the thread is up before stopping it.
        #expect(try onLoop(loop) { loop.inEventLoop })
        loop.shutdown()
        #expect(loop.didExit)
        #expect(!loop.submit {})
        loop.shutdown()  // idempotent
    }

    @Test func shutdownOfALoopThatNeverStarted() throws {
        let loop = try EventLoop(name: "test-idle")
        loop.execute {}
        loop.shutdown()
        #expect(loop.didExit)
        #expect(!loop.submit {})
    }

    @Test func acceptedTasksStillRunAcrossShutdown() throws {
        let loop = try EventLoop(name: "test-drain")
        loop.start()
        let ran = Shared(0)
        // A task that keeps the loop busy, then many more behind it.
        let gate = Promise<Void>()
        loop.execute { _ = try? gate.wait(seconds: 10) }
        for _ in 0..<100 { loop.execute { ran.update { $0 += 1 } } }
        gate.fulfill(())
        loop.shutdown()
        #expect(ran.value == 100)
    }

    @Test func shutdownClosesRegisteredConnections() throws {
        let loop = try EventLoop(name: "test-close")
        loop.start()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Posix.streamSocketType, 0, &fds) == 0)
        defer { close(fds[1]) }
        try Posix.setNonBlocking(fds[0])
        let delegate = RecordingDelegate()
        let fd = fds[0]
        try onLoop(loop) {
            let connection = StreamConnection(
                fd: fd, id: ConnectionID(1), loop: loop, localAddress: nil, remoteAddress: nil)
            connection.delegate = delegate
            connection.start()
        }
        loop.shutdown()
        #expect(delegate.record.value.closes.count == 1)
        #expect(delegate.record.value.closes.first.flatMap { $0 } == nil)
        // The loop closed our end: the peer sees EOF.
        var byte: UInt8 = 0
        #expect(read(fds[1], &byte, 1) == 0)
    }

    @Test func nowIsCachedOnTheLoopAndFreshElsewhere() throws {
        try withGroup(loops: 1) { group in
            let loop = group.loops[0]
            let (first, second) = try onLoop(loop) { (loop.now, loop.now) }
            #expect(first == second)
            let before = MonotonicInstant.now()
            #expect(loop.now >= before)
        }
    }

    @Test func groupHandsOutLoopsRoundRobin() throws {
        try withGroup(loops: 3) { group in
            let picked = (0..<6).map { _ in ObjectIdentifier(group.next()) }
            #expect(picked[0] != picked[1] && picked[1] != picked[2] && picked[0] != picked[2])
            #expect(Array(picked[0..<3]) == Array(picked[3..<6]))
            let names = Set(group.loops.map(\.name))
            #expect(names == ["test-loop-0", "test-loop-1", "test-loop-2"])
        }
    }
}
