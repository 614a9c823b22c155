#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Formats wall-clock times as RFC 3339 UTC with microseconds: `2026-11-29T13:04:52.123456Z`.
///
/// Events come thousands per second, so the `YYYY-MM-DDTHH:MM:SS.` part is formatted once per
/// second and reused; only the six fraction digits are written per event.
struct WallClock {
    private var cachedSecond: Int = .min
    private var cachedPrefix: [UInt8] = []

    /// Appends the current time (27 bytes, no quotes).
    mutating func appendNow(to output: inout JSONOutput) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        append(seconds: Int(spec.tv_sec), nanoseconds: Int(spec.tv_nsec), to: &output)
    }

    /// The current time as a String.
    mutating func now() -> String {
        var output = JSONOutput(capacity: 27)
        appendNow(to: &output)
        return output.text
    }

    /// Appends the time `seconds` + `nanoseconds` after the Unix epoch (27 bytes, no quotes).
    mutating func append(seconds: Int, nanoseconds: Int, to output: inout JSONOutput) {
        if seconds != cachedSecond {
            cachedPrefix = Self.formatPrefix(seconds: seconds)
            cachedSecond = seconds
        }
        cachedPrefix.withUnsafeBufferPointer { output.append($0) }
        output.appendZeroPadded(nanoseconds / 1000, width: 6)
        output.appendByte(UInt8(ascii: "Z"))
    }

    /// `YYYY-MM-DDTHH:MM:SS.` for a second after the epoch, in UTC.
    private static func formatPrefix(seconds: Int) -> [UInt8] {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var prefix: [UInt8] = []
        prefix.reserveCapacity(20)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            var remaining = value
            while divisor > 0 {
                prefix.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (remaining / divisor) % 10))
                remaining %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        prefix.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        prefix.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        prefix.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        prefix.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        prefix.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        prefix.append(UInt8(ascii: "."))
        return prefix
    }
}
