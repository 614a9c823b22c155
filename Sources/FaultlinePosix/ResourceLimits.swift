#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process resource limits a proxy should adjust at start.
public enum ResourceLimits {
    /// The open-file limit (`RLIMIT_NOFILE`) after ``raiseOpenFileLimit(ceiling:)``.
    public struct OpenFiles: Sendable, Equatable {
        /// The soft limit in force: the most descriptors the process may hold.
        public var soft: UInt64
        /// The hard limit, the most the soft one could be raised to.
        public var hard: UInt64
        /// Why the soft limit could not be raised to `min(hard, ceiling)`: `getrlimit` or
        /// `setrlimit` failed. Nil when it was raised or already there.
        public var failure: SystemError?

        public init(soft: UInt64, hard: UInt64, failure: SystemError? = nil) {
            self.soft = soft
            self.hard = hard
            self.failure = failure
        }
    }

    /// Raises the soft limit on open files to the hard limit (capped at `ceiling`), as servers
    /// such as nginx (`worker_rlimit_nofile`) and Go's runtime do: every proxied exchange holds
    /// two descriptors, and the common soft default of 1024 runs out at a few hundred clients.
    /// Returns the limits in force afterwards; a soft limit that stays below the ceiling because
    /// the hard limit is low is no failure, but the caller may want to say so.
    @discardableResult
    public static func raiseOpenFileLimit(ceiling: UInt64 = 1 << 20) -> OpenFiles {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else {
            return OpenFiles(soft: 0, hard: 0, failure: SystemError(errno: errno, call: "getrlimit"))
        }
        let hard = UInt64(limit.rlim_max)
        let target = min(hard, ceiling)
        guard UInt64(limit.rlim_cur) < target else { return OpenFiles(soft: UInt64(limit.rlim_cur), hard: hard) }
        var raised = limit
        raised.rlim_cur = rlim_t(target)
        guard setrlimit(resource, &raised) == 0 else {
            return OpenFiles(
                soft: UInt64(limit.rlim_cur), hard: hard, failure: SystemError(errno: errno, call: "setrlimit"))
        }
        return OpenFiles(soft: target, hard: hard)
    }
}
