/// HTTP dates (RFC 9110 §5.6.7) as seconds since the epoch, for the fields a replay moves in time
/// (`Date`, `Expires`, `Last-Modified`, `Retry-After`, a cookie's `Expires`).
///
/// Built on `WallTime`, whose calendar arithmetic the capture reader already uses.
public enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Reads an HTTP date in any of RFC 9110 §5.6.7's three forms: IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) and, as recipients must, the obsolete RFC 850
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms; also
    /// what a cookie's `Expires` often holds (RFC 6265 §5.1.1: dashes, two-digit years, 70–99 as
    /// 19xx). Returns nil for anything else, a day the month does not have included: a field that
    /// is not a date (`Expires: 0`) is left alone by its callers.
    public static func seconds(parsing text: String) -> Int64? {
        let trimmed = String(text.trimmingOWS)
        if let asctime = asctimeAsFixdate(trimmed) { return checked(asctime) }
        return checked(trimmed)
    }

    /// `seconds` as an IMF-fixdate, the form RFC 9110 §5.6.7 says a sender generates; nil for a
    /// time before 1970 or past April 2262 (nanoseconds since the epoch, as `WallTime` counts,
    /// hold no more; no HTTP field needs them).
    public static func format(seconds: Int64) -> String? {
        guard (0...9_223_372_036).contains(seconds) else { return nil }
        let text = WallTime(nanoseconds: seconds * 1_000_000_000).rfc3339  // YYYY-MM-DDThh:mm:ss.ffffffZ
        let parts = Array(text.utf8)
        func slice(_ from: Int, _ to: Int) -> String { String(decoding: parts[from..<to], as: UTF8.self) }
        guard let month = Int(slice(5, 7)) else { return nil }
        // 1970-01-01 was a Thursday.
        let weekday = weekdays[Int((seconds / 86_400 + 4) % 7)]
        return "\(weekday), \(slice(8, 10)) \(months[month - 1]) \(slice(0, 4)) \(slice(11, 19)) GMT"
    }

    /// The date `text` names, if the day it names exists (WallTime checks ranges only: 31 Feb
    /// would be 3 Mar).
    private static func checked(_ text: String) -> Int64? {
        guard let time = WallTime(httpDate: text), time.nanoseconds >= 0 else { return nil }
        let seconds = time.nanoseconds / 1_000_000_000
        let pieces = text.split { $0 == " " || $0 == "-" || $0 == "," }
        let dayIndex = pieces.first?.first?.isLetter == true ? 1 : 0
        guard pieces.count > dayIndex, let day = Int(pieces[dayIndex]), let written = format(seconds: seconds),
            let formattedDay = Int(written.dropFirst(5).prefix(2))
        else { return nil }
        return day == formattedDay ? seconds : nil
    }

    /// `Sun Nov  6 08:49:37 1994` (C's asctime, RFC 9110 §5.6.7) rewritten as
    /// `Sun, 06 Nov 1994 08:49:37 GMT`; nil for any other text.
    private static func asctimeAsFixdate(_ text: some StringProtocol) -> String? {
        let pieces = text.split(separator: " ")
        guard pieces.count == 5, weekdays.contains(String(pieces[0])), months.contains(String(pieces[1])),
            (1...2).contains(pieces[2].count), pieces[2].allSatisfy(\.isASCIIDigit), pieces[4].count == 4,
            pieces[4].allSatisfy(\.isASCIIDigit)
        else { return nil }
        let day = pieces[2].count == 1 ? "0" + pieces[2] : String(pieces[2])
        return "\(pieces[0]), \(day) \(pieces[1]) \(pieces[4]) \(pieces[3]) GMT"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
