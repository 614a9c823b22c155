#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command run to its end or to a deadline, with its output kept: the clients and
/// `--before-each` commands of `faultline explore`.
///
/// Spawned with `posix_spawnp` in a process group of its own (so a timeout kills what it started
/// too), with SIGINT and SIGTERM unblocked and at their default action again (the command line
/// blocks them in every thread it starts, and a child would inherit that mask), stdin from
/// /dev/null, stdout and stderr into one pipe whose last `keptBytes` are kept.
public enum ChildProcess {
    /// How the command ended.
    public struct Outcome: Sendable, Equatable {
        /// The exit status; nil when it was killed by a signal (`signal` says which).
        public var status: Int32?
        public var signal: Int32?
        /// Killed at the deadline.
        public var timedOut: Bool
        /// The end of its output (stdout and stderr together).
        public var output: [UInt8]

        /// The last non-empty line of output, for a message.
        public var lastLine: String? {
            let text = String(decoding: output, as: UTF8.self)
            return text.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }.map(String.init)
        }
    }

    /// The output kept per command.
    public static let keptBytes = 64 * 1024

    /// Runs `arguments` (the first is looked up on PATH) with exactly `environment`, waits for it
    /// at most `timeout`, then kills its process group. Throws when it cannot be started.
    public static func run(
        _ arguments: [String], environment: [String: String], timeout: Duration
    ) throws(SystemError) -> Outcome {
        precondition(!arguments.isEmpty, "ChildProcess.run: no command")
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SystemError(errno: errno, call: "pipe") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        let pid: pid_t
        do {
            pid = try spawn(arguments, environment: environment, output: writeEnd)
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        close(writeEnd)
        let collected = ConditionLock<(output: [UInt8], eof: Bool)>(([], false))
        let reader = try ThreadSpawner.spawn(name: "child-output") {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                collected.withLock { state in
                    state.output.append(contentsOf: buffer[0..<count])
                    if state.output.count > keptBytes { state.output.removeFirst(state.output.count - keptBytes) }
                }
            }
            close(readEnd)
            collected.withLock { $0.eof = true }
            collected.broadcast()
        }
        let exited = ConditionLock<Int32?>(nil)
        let waiter = try ThreadSpawner.spawn(name: "child-wait") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exited.withLock { $0 = status }
            exited.broadcast()
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var status: Int32? = exited.wait(until: { $0 != nil }, timeoutSeconds: seconds) { $0 } ?? nil
        var timedOut = false
        if status == nil {
            timedOut = true
            kill(-pid, SIGKILL)
            status = exited.wait(until: { $0 != nil }) { $0 }
        }
        ThreadSpawner.join(waiter)
        // The group is gone or done; what it wrote is in the pipe until the last writer closes.
        kill(-pid, SIGKILL)
        ThreadSpawner.join(reader)
        let output = collected.withLock { $0.output }
        let raw = status ?? 0
        let signalled = raw & 0x7F
        return Outcome(
            status: signalled == 0 ? (raw >> 8) & 0xFF : nil, signal: signalled == 0 ? nil : signalled,
            timedOut: timedOut, output: output)
    }

    private static func spawn(
        _ arguments: [String], environment: [String: String], output: Int32
    ) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw SystemError(errno: result, call: "posix_spawnp \(arguments[0])") }
        return pid
    }
}
