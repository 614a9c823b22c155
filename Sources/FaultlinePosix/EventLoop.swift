public import FaultlineCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
typealias PlatformSelector = EpollSelector
#else
typealias PlatformSelector = KqueueSelector
#endif

private let loopSerials = Atomic<UInt32>(0)

/// One thread that multiplexes sockets, runs timers and runs tasks handed to it by other threads.
///
/// Create it, `start()` it (or use `EventLoopGroup`, which does both), then do all work for the
/// connections it owns on its thread: readiness callbacks, timer callbacks and `execute` tasks
/// all run there. Other threads talk to it only through `execute` (and `shutdown`).
///
/// Theory of operation, per iteration: wait in the selector until an event, a wakeup or the
/// nearest timer deadline; dispatch each event to its registered handler (stale events for
/// closed descriptors are dropped by generation); refresh `now`; fire due timers; run queued
/// tasks. Tasks queued from the loop thread itself make the next wait a poll.
///
/// `@unchecked Sendable`, and why it is sound:
/// - `remote` (cross-thread task queue), `lifecycle`, `loopThreadID`, `stopRequested` and
///   `hasExited` are locks (`ConditionLock`) or atomics: safe from any thread.
/// - `selector` is used from other threads only for `wakeup()`, which its contract allows, and
///   only while holding `remote`'s lock with `accepting` true; the loop closes the selector only
///   after setting `accepting` to false under that lock, so no wakeup can hit a closed descriptor.
/// - Every other stored `var` (registrations, timers, local tasks, the cached clock, the read
///   buffer) is touched only by the loop thread: each internal entry point checks
///   `preconditionInEventLoop()`/`assertInEventLoop()`, and the public ones that may come from
///   anywhere (`execute`, `now`, `inEventLoop`) branch on `inEventLoop` before touching them.
///   The exceptions are `init`, `deinit` and `shutdown()` of a loop that never started: no loop
///   thread exists then, and `lifecycle`'s lock keeps `start()` out.
public final class EventLoop: @unchecked Sendable {
    /// The loop's name; its thread carries it (cut to 15 bytes).
    public let name: String
    let serial: UInt32

    private struct RemoteTasks {
        var tasks: [@Sendable () -> Void] = []
        var wakeupPending = false
        var accepting = true
    }

    private enum Lifecycle {
        case created
        case running(ThreadSpawner.Handle)
        case stopped
    }

    // Cross-thread state.
    private let remote = ConditionLock(RemoteTasks())
    private let lifecycle = ConditionLock(Lifecycle.created)
    private let loopThreadID = Atomic<UInt>(0)
    private let stopRequested = Atomic<Bool>(false)
    /// Set by the loop thread as its last act (tests check that `shutdown` joined).
    private let hasExited = Atomic<Bool>(false)

    // Loop-thread state.
    let selector: PlatformSelector
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var registrations = RegistrationTable()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var timers: TimerQueue
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var localTasks: [() -> Void] = []
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var localScratch: [() -> Void] = []
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var remoteScratch: [@Sendable () -> Void] = []
    private var cachedNow: MonotonicInstant
    private var selectorClosed = false
    /// Shared by every connection of this loop for reads: bytes handed to `didRead` live here,
    /// which is why they are valid only during the callback.
    let readBuffer: UnsafeMutableRawBufferPointer

    static let readBufferSize = 64 * 1024

    /// Creates a stopped loop with its selector and wakeup descriptor. Throws `SystemError` when
    /// the kernel refuses them (descriptor limits). Call `start()` to run it.
    public init(name: String) throws {
        Self.ignoreBrokenPipeSignal
        self.name = name
        serial = loopSerials.add(1, ordering: .relaxed).newValue
        selector = try PlatformSelector()
        timers = TimerQueue(loopSerial: serial)
        cachedNow = .now()
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
    }

    deinit {
        // A started loop's thread keeps the loop alive until it has torn down, so only a loop
        // that never started can arrive here with its selector open.
        if !selectorClosed { selector.close() }
        readBuffer.deallocate()
    }

    /// Writing to a socket whose peer is gone raises SIGPIPE, which kills the process by default.
    /// Ignore it process-wide once, before any socket exists; `write` then fails with EPIPE.
    private static let ignoreBrokenPipeSignal: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    // MARK: - Threads

    /// Spawns the loop's thread. Call once; tasks executed before it wait until it runs.
    /// Traps if the system cannot create a thread (`EventLoopGroup` throws instead).
    public func start() {
        do {
            try startThread()
        } catch {
            preconditionFailure("cannot start event loop \(name): \(error)")
        }
    }

    /// Spawns the loop's thread, or throws when `pthread_create` fails.
    func startThread() throws(SystemError) {
        try lifecycle.withLock { (state) throws(SystemError) -> Void in
            guard case .created = state else {
                preconditionFailure("EventLoop \(name) started twice or after shutdown")
            }
            let handle = try ThreadSpawner.spawn(name: name) { [self] in self.run() }
            state = .running(handle)
        }
    }

    /// True once the loop's thread has finished (or the loop was shut down before it started).
    var didExit: Bool { hasExited.load(ordering: .acquiring) }

    /// True when called from this loop's thread.
    public var inEventLoop: Bool {
        loopThreadID.load(ordering: .acquiring) == ThreadSpawner.currentThreadID
    }

    /// Debug-build check that the caller is on this loop's thread (free in release builds).
    public func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "not on event loop \(name)", file: file, line: line)
    }

    /// Like `assertInEventLoop`, but checked in release builds too.
    func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "not on event loop \(name)", file: file, line: line)
    }

    /// Stops the loop from another thread and waits for its thread to finish.
    ///
    /// Tasks already accepted by `execute` still run; connections and listeners still registered
    /// are closed (delegates hear `didCloseWith(nil)`); pending timers are dropped; the selector's
    /// descriptors are closed. Later `execute` calls are ignored. Idempotent. Must not be called
    /// from the loop's own thread (it cannot join itself).
    public func shutdown() {
        precondition(!inEventLoop, "EventLoop.shutdown() called on its own thread \(name)")
        lifecycle.withLock { state in
            switch state {
            case .created:
                // No loop thread exists, so this thread may tear down the loop-confined state.
                remote.withLock { tasks in
                    tasks.accepting = false
                    tasks.tasks.removeAll()
                }
                timers.removeAll()
                localTasks.removeAll()
                selector.close()
                selectorClosed = true
                hasExited.store(true, ordering: .releasing)
                state = .stopped
            case .running(let thread):
                stopRequested.store(true, ordering: .releasing)
                remote.withLock { tasks in
                    if tasks.accepting { selector.wakeup() }
                }
                ThreadSpawner.join(thread)
                state = .stopped
            case .stopped:
                break
            }
        }
    }

    private func run() {
        loopThreadID.store(ThreadSpawner.currentThreadID, ordering: .releasing)
        cachedNow = .now()
        while !stopRequested.load(ordering: .acquiring) {
            runOnce()
        }
        tearDown()
        loopThreadID.store(0, ordering: .releasing)
        hasExited.store(true, ordering: .releasing)
    }

    private func runOnce() {
        let timeout: Duration?
        if !localTasks.isEmpty {
            timeout = .zero
        } else if let deadline = timers.nextDeadline() {
            timeout = MonotonicInstant.now().duration(to: deadline)
        } else {
            timeout = nil
        }
        do {
            try selector.wait(timeout: timeout) { token, events in
                if let handler = registrations.handler(for: token) {
                    handler.handleReadiness(events)
                }
            }
        } catch {
            preconditionFailure("event loop \(name): selector wait failed: \(error)")
        }
        cachedNow = .now()
        runExpiredTimers()
        runTasks()
    }

    private func tearDown() {
        remote.withLock { $0.accepting = false }
        // Every task `execute` accepted runs exactly once, even across shutdown; closing
        // handlers may queue more (deferred closes), so go round until nothing is left.
        var rounds = 0
        repeat {
            runTasks()
            for handler in registrations.allHandlers {
                handler.closeForLoopShutdown()
            }
            rounds += 1
        } while (!localTasks.isEmpty || registrations.count > 0) && rounds < 64
        precondition(registrations.count == 0, "event loop \(name): handlers still registered after shutdown")
        timers.removeAll()
        localTasks.removeAll()
        selector.close()
        selectorClosed = true
    }

    // MARK: - Tasks

    /// Runs `task` on the loop's thread, soon. Callable from any thread; from another thread it
    /// wakes the loop (eventfd on Linux, EVFILT_USER on Darwin). Tasks run in submission order per
    /// submitting thread. After `shutdown()` the task is dropped.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        _ = submit(task)
    }

    /// Like `execute`, but says whether the task was accepted (false once the loop has shut
    /// down); an accepted task is guaranteed to run exactly once.
    @discardableResult
    func submit(_ task: @escaping @Sendable () -> Void) -> Bool {
        if inEventLoop {
            localTasks.append(task)
            return true
        }
        return remote.withLock { queue in
            guard queue.accepting else { return false }
            queue.tasks.append(task)
            if !queue.wakeupPending {
                queue.wakeupPending = true
                selector.wakeup()
            }
            return true
        }
    }

    /// Queues a non-`Sendable` task from the loop thread itself, to run after the current events
    /// (every socket the loop found ready in this iteration has been handled by then).
    public func executeLocal(_ task: @escaping () -> Void) {
        preconditionInEventLoop()
        localTasks.append(task)
    }

    private func runTasks() {
        remote.withLock { queue in
            swap(&queue.tasks, &remoteScratch)
            queue.wakeupPending = false
        }
        if !remoteScratch.isEmpty {
            for task in remoteScratch { task() }
            remoteScratch.removeAll(keepingCapacity: true)
        }
        if !localTasks.isEmpty {
            swap(&localTasks, &localScratch)
            for task in localScratch { task() }
            localScratch.removeAll(keepingCapacity: true)
        }
    }

    // MARK: - Time

    /// The loop's notion of now: refreshed once per iteration on the loop thread (cheap, and the
    /// same for everything handled in one iteration); read fresh when called from elsewhere.
    public var now: MonotonicInstant {
        inEventLoop ? cachedNow : .now()
    }

    /// Calls `callback` on the loop thread once `delay` has passed, unless cancelled first.
    /// Loop thread only. Timers due at the same time fire in the order they were scheduled.
    @discardableResult
    public func scheduleTimer(after delay: Duration, _ callback: @escaping () -> Void) -> TimerHandle {
        preconditionInEventLoop()
        return timers.schedule(at: MonotonicInstant.now().advanced(by: delay), callback)
    }

    /// Cancels a timer of this loop; a cancelled timer never fires. Cancelling one that already
    /// fired (or was cancelled) does nothing. Loop thread only.
    public func cancelTimer(_ handle: TimerHandle) {
        preconditionInEventLoop()
        timers.cancel(handle)
    }

    private func runExpiredTimers() {
        let marker = timers.roundMarker
        while let callback = timers.popExpired(now: cachedNow, before: marker) {
            callback()
        }
    }
}
