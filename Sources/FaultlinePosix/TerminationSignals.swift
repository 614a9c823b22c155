#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM into something a thread can wait for, so the process can stop
/// cleanly (flush its trace, close its listeners) instead of dying in a signal handler.
///
/// Usage: `TerminationSignals.block()` first thing in `main`, before any thread exists (threads
/// inherit the signal mask, so none of them will be interrupted); start the server; then
/// `let signal = TerminationSignals.wait()` on the main thread and shut down.
public enum TerminationSignals {
    /// Blocks SIGINT and SIGTERM for the calling thread and every thread it starts later, and
    /// ignores SIGPIPE process-wide (a write to a closed peer then fails with EPIPE instead of
    /// killing the process).
    public static func block() {
        _ = signal(SIGPIPE, SIG_IGN)
        var set = terminationSet()
        let result = pthread_sigmask(SIG_BLOCK, &set, nil)
        precondition(result == 0, "pthread_sigmask failed with \(result)")
    }

    /// Blocks the calling thread until SIGINT or SIGTERM is pending, consumes it, and returns its
    /// number. Call `block()` first, or the signal's default action kills the process instead.
    public static func wait() -> Int32 {
        var set = terminationSet()
        var received: Int32 = 0
        while true {
            let result = sigwait(&set, &received)
            if result == 0 { return received }
            precondition(result == EINTR, "sigwait failed with \(result)")
        }
    }

    /// `SIGINT` or `SIGTERM`, for messages.
    public static func name(_ signal: Int32) -> String {
        signal == SIGINT ? "SIGINT" : "SIGTERM"
    }

    private static func terminationSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }
}
