/// RFC 3339 timestamps (`2026-12-06T10:00:00Z`, `2026-12-06T11:00:00.5+01:00`) as nanoseconds
/// since the epoch, for JSON fields a replay moves in time.
///
/// Built on `WallTime`, which reads the trace's and HAR's timestamps the same way.
public enum RFC3339Date {
    /// The instant `text` names (RFC 3339 §5.6 `date-time`; a space for `T` and a lowercase `z`
    /// too); nil for anything else.
    public static func nanoseconds(parsing text: String) -> Int64? {
        WallTime(iso8601: text)?.nanoseconds
    }

    /// `YYYY-MM-DDThh:mm:ssZ` in UTC for a whole second; nil for a time before 1970 or past 2262
    /// (nanoseconds since the epoch hold no more).
    public static func format(seconds: Int64) -> String? {
        guard (0...9_223_372_036).contains(seconds) else { return nil }
        return String(WallTime(nanoseconds: seconds * 1_000_000_000).rfc3339.prefix(19)) + "Z"
    }
}
