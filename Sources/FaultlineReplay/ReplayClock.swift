import FaultlineCapture

/// Which time a replay's answers tell (`--clock`, `--now`): the distance each answer's recorded
/// times move by. Sans-I/O: the caller reads the clocks and hands the readings in.
public struct ReplayClock: Sendable, Equatable {
    /// How recorded times relate to this run's.
    public enum Mode: Sendable, Equatable, CustomStringConvertible {
        /// The default: an answer's times move by the distance between the recorded request's time
        /// and this request's, so a capture replayed a day later hands out a day-later `Date`,
        /// cookie expiry and token `exp`.
        case shift
        /// Recorded times as recorded.
        case recorded
        /// Answers as at one instant (seconds since the epoch), for clients under a fixed test clock.
        case frozen(at: Int64)

        /// `shift`, `recorded`, or `frozen=TIME` (RFC 3339 or epoch seconds); nil for anything else.
        public init?(parsing text: String) {
            switch text {
            case "shift": self = .shift
            case "recorded": self = .recorded
            default:
                guard text.hasPrefix("frozen="), let instant = ReplayClock.seconds(parsing: String(text.dropFirst(7)))
                else { return nil }
                self = .frozen(at: instant)
            }
        }

        public var description: String {
            switch self {
            case .shift: "shift"
            case .recorded: "recorded"
            case .frozen(let at): "frozen=\(RFC3339Date.format(seconds: at) ?? String(at))"
            }
        }
    }

    public var mode: Mode
    /// `--now`: the instant (seconds since the epoch) this run's clock reads when the replay
    /// starts; it runs on from there. Nil: the system's wall clock. A test says "a day later" with
    /// it, without waiting a day or faking the system clock.
    public var startsAt: Int64?

    public init(mode: Mode = .shift, startsAt: Int64? = nil) {
        self.mode = mode
        self.startsAt = startsAt
    }

    /// An instant given on the command line: RFC 3339 (`2026-12-07T10:00:00Z`) or whole epoch
    /// seconds (`1796637600`); nil for anything else.
    public static func seconds(parsing text: String) -> Int64? {
        if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) { return Int64(text) }
        return RFC3339Date.nanoseconds(parsing: text).map { floorDivide($0, 1_000_000_000) }
    }

    /// This run's time, in nanoseconds since the epoch: the system's `wall` reading, or with
    /// `startsAt` that instant plus `elapsed` nanoseconds since the replay started.
    public func now(wall: Int64, elapsed: Int64) -> Int64 {
        guard let startsAt else { return wall }
        return startsAt * 1_000_000_000 + elapsed
    }

    /// The whole seconds an answer's times move by when its recorded request was at `recorded`
    /// and this one is at `now` (both nanoseconds since the epoch): zero for `recorded`, or when
    /// the recording has no time for the request (nil). Whole seconds, since HTTP dates and JWT
    /// NumericDates (RFC 7519 §2) are written in them; rounded down.
    public func offset(recorded: Int64?, now: Int64) -> Int64 {
        guard let recorded else { return 0 }
        switch mode {
        case .recorded: return 0
        case .shift: return Self.floorDivide(now - recorded, 1_000_000_000)
        case .frozen(let at): return at - Self.floorDivide(recorded, 1_000_000_000)
        }
    }

    /// Whether a credential the recorded server rejected for expiry has expired on this run's
    /// clock (`CredentialRun`), by the mode:
    /// - `shift`: the recorded times move with this run, so its life does: its fresh value has
    ///   lived `lifetime` nanoseconds (as long as the recorded one had when first rejected) since
    ///   this run handed it out, `age` (nanoseconds, monotonic; nil: never handed out).
    /// - `recorded`: the recorded instants stay, so it expires when this run's clock (`now`,
    ///   nanoseconds since the epoch: the system's or `--now`'s) reaches the recorded instant of
    ///   the first rejection, `recordedExpiry` (nil when the capture's wall time does not parse:
    ///   then as `shift`). Replayed a day later, it is expired from the start, as the answers'
    ///   recorded `exp` says.
    /// - `frozen`: the clock stands still, so nothing expires by time (every answer says the same
    ///   instant, and a token it issued is never past its `exp` at that instant).
    public func hasExpired(lifetime: UInt64, age: Int64?, recordedExpiry: Int64?, now: Int64) -> Bool {
        switch mode {
        case .frozen: return false
        case .recorded:
            if let recordedExpiry { return now >= recordedExpiry }
        case .shift: break
        }
        guard let age else { return false }
        return age >= Int64(clamping: lifetime)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
