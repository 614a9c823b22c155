#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process resource limits a proxy should adjust at start.
public enum ResourceLimits {
    /// Raises the soft limit on open files to the hard limit (capped at `ceiling`), as servers
    /// such as nginx (`worker_rlimit_nofile`) and Go's runtime do: every proxied exchange holds
    /// two descriptors, and the common soft default of 1024 runs out at a few hundred clients.
    /// Returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseOpenFileLimit(ceiling: UInt64 = 1 << 20) -> UInt64 {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        let target = min(UInt64(limit.rlim_max), ceiling)
        if UInt64(limit.rlim_cur) < target {
            var raised = limit
            raised.rlim_cur = rlim_t(target)
            if setrlimit(resource, &raised) == 0 { return target }
        }
        return UInt64(limit.rlim_cur)
    }
}
