import FaultlineCapture

/// What an answer asked of its client before it sends the request again: `Retry-After`
/// (RFC 9110 §10.2.3), as delta-seconds or as an HTTP-date. A date is taken relative to the
/// instant the answer was delivered (the trace's wall clock), the instant a client reading it
/// would compare the date with.
struct RetryAfter: Sendable, Equatable {
    /// The field as sent: `2`, or `Sun, 06 Nov 1994 08:49:37 GMT`.
    let text: String
    /// How long after delivery the client was asked to wait (0 for a date already past).
    let nanoseconds: UInt64

    /// A wait longer than this is read as this: a year is "do not come back" to any test.
    static let longest: UInt64 = 365 * 86_400

    /// Reads `text` from an answer delivered at `delivered` (RFC 3339); nil when it is neither
    /// form, or a date with no delivery time to measure it from.
    init?(_ text: String, delivered: String) {
        let value = text.trimmingOWS
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // 1*DIGIT; more digits than UInt64 holds is still "longer than a year".
            nanoseconds = min(UInt64(value) ?? Self.longest, Self.longest) * 1_000_000_000
        } else if let date = HTTPDate.seconds(parsing: String(value)),
            let now = RFC3339Date.nanoseconds(parsing: delivered)
        {
            let wait = date * 1_000_000_000 - now
            nanoseconds = wait > 0 ? min(UInt64(wait), Self.longest * 1_000_000_000) : 0
        } else {
            return nil
        }
        self.text = String(value)
    }

    /// `2.0 s`, `1.5 s`, `250 ms`: the wait, for sentences, as the report's time axis writes it.
    var duration: String { TimelineTimeScale.duration(nanoseconds) }
}
