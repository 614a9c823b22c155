#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the monotonic clock, in nanoseconds since an arbitrary origin.
///
/// Used for deadlines and for the trace's monotonic timestamps; it never jumps when the
/// wall clock is adjusted.
public struct MonotonicInstant: Hashable, Sendable, Comparable {
    public let nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The current instant.
    public static func now() -> MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    /// This instant moved forward by `duration` (negative durations are clamped at zero).
    public func advanced(by duration: Duration) -> MonotonicInstant {
        let (seconds, attoseconds) = duration.components
        let delta = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        if delta < 0 { return MonotonicInstant(nanoseconds: nanoseconds &- min(nanoseconds, UInt64(-delta))) }
        return MonotonicInstant(nanoseconds: nanoseconds &+ UInt64(delta))
    }

    /// The time from `self` to `later`, zero if `later` is not after `self`.
    public func duration(to later: MonotonicInstant) -> Duration {
        later.nanoseconds > nanoseconds ? .nanoseconds(Int64(later.nanoseconds - nanoseconds)) : .zero
    }

    /// Nanoseconds from `earlier` to `self`, zero if `self` is not after it: `duration(to:)` as an
    /// integer, without `Duration`'s 128-bit arithmetic (which its `components` pay on every read).
    public func nanoseconds(since earlier: MonotonicInstant) -> UInt64 {
        nanoseconds > earlier.nanoseconds ? nanoseconds - earlier.nanoseconds : 0
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
