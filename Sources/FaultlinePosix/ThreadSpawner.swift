#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain pthreads for event loops and resolver workers: no Foundation, joinable, named.
enum ThreadSpawner {
    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    typealias Handle = pthread_t

    /// Starts a joinable thread named `name` (cut to 15 bytes, the Linux limit) running `body`.
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> Handle {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                ThreadSpawner.run(argument!)
                return nil
            }, start)
        if result != 0 {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError(errno: result, call: "pthread_create")
        }
        return thread
        #else
        var thread: pthread_t?
        let result = pthread_create(
            &thread, nil,
            { argument in
                ThreadSpawner.run(argument)
                return nil
            }, start)
        if result != 0 {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError(errno: result, call: "pthread_create")
        }
        return thread!
        #endif
    }

    private static func run(_ argument: UnsafeMutableRawPointer) {
        let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
        setCurrentThreadName(start.name)
        start.body()
    }

    /// Names the calling thread for debuggers and `top -H`. Best effort: a failure is ignored.
    private static func setCurrentThreadName(_ name: String) {
        var bytes = Array(name.utf8.prefix(15))
        #if canImport(Glibc)
        // pthread_setname_np needs _GNU_SOURCE, which Glibc's module does not define; the
        // kernel's per-thread comm file does the same thing.
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = Glibc.write(fd, &bytes, bytes.count)
        Posix.closeDescriptor(fd)
        #else
        bytes.append(0)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { _ = pthread_setname_np($0.baseAddress!) }
        }
        #endif
    }

    /// Waits for `thread` to finish. Never call it for the current thread.
    static func join(_ thread: Handle) {
        let result = pthread_join(thread, nil)
        precondition(result == 0, "pthread_join failed with \(result)")
    }

    /// A number identifying the calling thread while it runs (never 0).
    static var currentThreadID: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
