import FaultlineCapture
import Testing

/// RFC 9110 §5.6.7's example instant, Sun, 06 Nov 1994 08:49:37 GMT.
private let example: Int64 = 784_111_777

@Test func theThreeHTTPDateFormsReadTheSameInstant() {
    #expect(HTTPDate.seconds(parsing: "Sun, 06 Nov 1994 08:49:37 GMT") == example)
    #expect(HTTPDate.seconds(parsing: "Sunday, 06-Nov-94 08:49:37 GMT") == example)
    #expect(HTTPDate.seconds(parsing: "Sun Nov  6 08:49:37 1994") == example)
    #expect(HTTPDate.seconds(parsing: "Sun Nov 16 08:49:37 1994") == example + 10 * 86_400)
    // What cookies' Expires often holds (RFC 6265 §5.1.1), and surrounding whitespace.
    #expect(HTTPDate.seconds(parsing: "Sun, 06-Nov-1994 08:49:37 GMT") == example)
    #expect(HTTPDate.seconds(parsing: "  Sun, 06 Nov 1994 08:49:37 GMT ") == example)
}

@Test func anHTTPDateIsWrittenAsAnIMFFixdate() {
    #expect(HTTPDate.format(seconds: example) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPDate.format(seconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    #expect(HTTPDate.format(seconds: 1_709_208_000) == "Thu, 29 Feb 2024 12:00:00 GMT")
    #expect(HTTPDate.format(seconds: 1_796_169_600 + 86_400) == "Thu, 03 Dec 2026 00:00:00 GMT")
    for seconds: Int64 in [0, example, 1_709_208_000, 4_102_444_799, 9_223_372_036] {
        #expect(HTTPDate.seconds(parsing: HTTPDate.format(seconds: seconds)!) == seconds)
    }
    // Outside what the type can hold (before 1970 or past 2262): no text rather than a wrong one.
    #expect(HTTPDate.format(seconds: -1) == nil)
    #expect(HTTPDate.format(seconds: 9_223_372_037) == nil)
    #expect(HTTPDate.format(seconds: .max) == nil)
}

@Test(arguments: [
    "", "0", "-1", "now", "garbage, 06 Nov 1994 08:49:37 GMT x",
    "Sun, 32 Nov 1994 08:49:37 GMT",  // no 32nd
    "Tue, 31 Feb 2026 08:49:37 GMT",  // February has no 31st (not 3 March)
    "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 08:49 GMT",
    "Sun, 06 Nov 1994 08:49:37 PST",  // HTTP dates are GMT only
    "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994", "Sun Nov  6 08:49:37", "Sun Nov  6 08:49:37 94",
    "Sun, 06 Nov 99999 08:49:37 GMT", "Sun, xx Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z",
])
func whatIsNoHTTPDateReadsAsNothing(text: String) {
    #expect(HTTPDate.seconds(parsing: text) == nil)
}

@Test func rfc3339TimesReadWithTheirOffsetAndWriteInUTC() {
    #expect(RFC3339Date.nanoseconds(parsing: "1994-11-06T08:49:37Z") == example * 1_000_000_000)
    #expect(RFC3339Date.nanoseconds(parsing: "1994-11-06T09:49:37.5+01:00") == example * 1_000_000_000 + 500_000_000)
    #expect(RFC3339Date.format(seconds: example) == "1994-11-06T08:49:37Z")
    for bad in ["", "1994-11-06", "1994-11-06T08:49:37", "06 Nov 1994", "1994-13-06T08:49:37Z", "x"] {
        #expect(RFC3339Date.nanoseconds(parsing: bad) == nil, "\(bad)")
    }
    #expect(RFC3339Date.format(seconds: -1) == nil)
}
