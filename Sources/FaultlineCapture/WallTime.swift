import Foundation

/// A point in UTC time with nanoseconds, read from and written as the texts the formats use:
/// the trace's `wall` (RFC 3339 UTC with microseconds), HAR's `startedDateTime` (ISO 8601 with a
/// zone offset) and a cookie's `Expires` (an HTTP date).
///
/// Written without Foundation's formatters: they differ between platforms in how many fraction
/// digits they read, and mitmproxy writes six, browsers three.
struct WallTime: Sendable, Comparable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    let nanoseconds: Int64

    init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    static func < (left: WallTime, right: WallTime) -> Bool { left.nanoseconds < right.nanoseconds }

    /// The current time (to the microsecond the trace writes).
    static var now: WallTime {
        WallTime(nanoseconds: Int64((Date().timeIntervalSince1970 * 1_000_000).rounded()) * 1000)
    }

    /// `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm|±hhmm)` (RFC 3339 §5.6, which HAR 1.2's ISO 8601
    /// dates are in practice); a space for `T` and a lowercase `z` are read too (RFC 3339 allows
    /// both). Nil for anything else.
    init?(iso8601 text: String) {
        var scanner = DigitScanner(text)
        guard let year = scanner.number(digits: 4), scanner.skip("-"), let month = scanner.number(digits: 2),
            scanner.skip("-"), let day = scanner.number(digits: 2),
            scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2),
            scanner.skip(":"), let second = scanner.number(digits: 2)
        else { return nil }
        var fraction: Int64 = 0
        if scanner.skip(".") {
            var digits = 0
            while let digit = scanner.number(digits: 1) {
                if digits < 9 { fraction = fraction * 10 + digit }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { fraction *= 10 }
        }
        let offsetMinutes: Int64
        if scanner.skip("Z") || scanner.skip("z") {
            offsetMinutes = 0
        } else if let sign = scanner.sign(), let hours = scanner.number(digits: 2) {
            _ = scanner.skip(":")
            guard let minutes = scanner.number(digits: 2) else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }
        self.init(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: fraction,
            offsetMinutes: offsetMinutes)
    }

    /// An HTTP date: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7), also with
    /// dashes (`06-Nov-1994`) and two-digit years as cookies' `Expires` often has them (RFC 6265
    /// §5.1.1 reads years 70–99 as 19xx and 0–69 as 20xx). Nil for anything else.
    init?(httpDate text: String) {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        var pieces = text.split { $0 == " " || $0 == "-" || $0 == "," }.map(String.init)
        if let first = pieces.first, first.first?.isLetter == true { pieces.removeFirst() }  // the weekday
        guard pieces.count == 5, pieces[4].uppercased() == "GMT", let day = Int64(pieces[0]),
            let monthIndex = months.firstIndex(of: pieces[1].lowercased()), var year = Int64(pieces[2])
        else { return nil }
        if pieces[2].count <= 2 { year += year >= 70 ? 1900 : 2000 }
        let clock = pieces[3].split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3 else { return nil }
        self.init(
            year: year, month: Int64(monthIndex + 1), day: day, hour: clock[0], minute: clock[1], second: clock[2],
            fraction: 0, offsetMinutes: 0)
    }

    private init?(
        year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, fraction: Int64,
        offsetMinutes: Int64
    ) {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        // Int64 nanoseconds hold 1677 to 2262: a later year (a HAR's `9038-…`, a cookie's
        // `Expires` in year 99999) is no time this type can hold, not a trap.
        guard (0...9999).contains(year) else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = scaled.addingReportingOverflow(fraction)
        guard !overflow, !carry else { return nil }
        nanoseconds = total
    }

    /// `YYYY-MM-DDThh:mm:ss.ffffffZ`, the trace's `wall` form (microseconds, UTC).
    var rfc3339: String {
        // Floor division by the remainder, which cannot overflow near Int64.min as `n - 999_999_999` can.
        var seconds = nanoseconds / 1_000_000_000
        var remainder = nanoseconds % 1_000_000_000
        if remainder < 0 {
            seconds -= 1
            remainder += 1_000_000_000
        }
        let micros = remainder / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(secondOfDay / 3600, 2)):"
            + "\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2)).\(padded(micros, 6))Z"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysFromCivil` (`civil_from_days`).
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads fixed-width decimal numbers and literal characters off the front of a text.
private struct DigitScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    var atEnd: Bool { index == scalars.count }

    /// The next `digits` characters as a number, if they are all ASCII digits (consumed only then).
    mutating func number(digits: Int) -> Int64? {
        guard index + digits <= scalars.count else { return nil }
        var value: Int64 = 0
        for scalar in scalars[index..<index + digits] {
            guard ("0"..."9").contains(scalar) else { return nil }
            value = value * 10 + Int64(scalar.value - 48)
        }
        index += digits
        return value
    }

    /// +1 or -1 for a `+` or `-` that comes next (consumed), else nil.
    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    /// Consumes `literal` if it comes next.
    mutating func skip(_ literal: Unicode.Scalar) -> Bool {
        guard index < scalars.count, scalars[index] == literal else { return false }
        index += 1
        return true
    }
}
