/// Whether a live string says what a recorded one said, credentials aside: a recorded credential
/// with a known live value must be that value; a pseudonym without one stands for any credential
/// (a run of token characters), since the live answer cannot repeat a name only the capture knows.
///
/// Matching is left to right without backtracking: an unknown pseudonym takes the longest run of
/// token characters there (RFC 6750 §2.1's b64token characters), which is how a credential ends
/// where quotes, `;`, `&` or spaces follow it.
enum RecordedTextMatcher {
    static func matches(recorded: [UInt8], live: [UInt8], credentials: CredentialMap) -> Bool {
        var livePosition = 0
        var recordedPosition = 0
        for occurrence in credentials.occurrences(in: recorded) {
            let literal = recorded[recordedPosition..<occurrence.range.lowerBound]
            guard live[livePosition...].starts(with: literal) else { return false }
            livePosition += literal.count
            recordedPosition = occurrence.range.upperBound
            if let value = credentials.liveValues[occurrence.recorded] {
                let bytes = Array(value.utf8)
                guard live[livePosition...].starts(with: bytes) else { return false }
                livePosition += bytes.count
            } else {
                let run = live[livePosition...].prefix(while: isTokenByte).count
                guard run > 0 else { return false }
                livePosition += run
            }
        }
        return live[livePosition...].elementsEqual(recorded[recordedPosition...])
    }

    static func matches(recorded: String, live: String, credentials: CredentialMap) -> Bool {
        matches(recorded: Array(recorded.utf8), live: Array(live.utf8), credentials: credentials)
    }

    /// RFC 6750 §2.1 b64token: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" and trailing "=".
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"),
            UInt8(ascii: "="):
            true
        default:
            false
        }
    }
}
