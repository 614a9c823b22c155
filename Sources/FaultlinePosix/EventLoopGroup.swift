import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed set of running event loops, handed out round-robin.
///
/// Create one per process (a listener registers in all of its loops), pass `next()` to whatever
/// needs a loop, and call `shutdown()` once at the end.
public final class EventLoopGroup: Sendable {
    /// The loops, all started.
    public let loops: [EventLoop]
    private let cursor = Atomic<UInt>(0)

    /// Creates and starts `loopCount` loops named `namePrefix-0`, `namePrefix-1`, ...
    /// Throws `SystemError` when a loop's descriptors or thread cannot be created (loops made so
    /// far are shut down first).
    public init(loopCount: Int = EventLoopGroup.onlineProcessorCount, namePrefix: String = "faultline-loop") throws {
        precondition(loopCount > 0, "an EventLoopGroup needs at least one loop")
        var loops: [EventLoop] = []
        do {
            for index in 0..<loopCount {
                loops.append(try EventLoop(name: "\(namePrefix)-\(index)"))
            }
            for loop in loops { try loop.startThread() }
        } catch {
            for loop in loops { loop.shutdown() }
            throw error
        }
        self.loops = loops
    }

    /// The number of online processors (at least 1).
    public static var onlineProcessorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The next loop in round-robin order; any thread.
    public func next() -> EventLoop {
        let index = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[Int(index % UInt(loops.count))]
    }

    /// Shuts every loop down (see `EventLoop.shutdown()`) and waits for their threads.
    /// Not from one of the group's own loop threads.
    public func shutdown() {
        for loop in loops { loop.shutdown() }
    }
}
