public import FaultlineCapture
import FaultlineCore
import FaultlineRules

/// Says how a live answer differs from the recorded one: the status always; with bodies
/// compared, JSON bodies value by value (`JSONBodyComparison`) and other bodies as text with
/// credentials matched (`RecordedTextMatcher`) or as bytes.
public enum ResponseComparison {
    /// The differences between `recorded` (nil: the recorded request got no answer) and `live`
    /// (nil: no answer now), in the order status, body.
    public static func differences(
        recorded: CapturedResponse?, live: LiveResponse?, comparesBodies: Bool, credentials: CredentialMap
    ) -> [ResponseDifference] {
        guard let recorded, let live else {
            if recorded == nil, live == nil { return [] }
            return [
                ResponseDifference(
                    .status, recorded: recorded.map { "\($0.status)" } ?? "none",
                    now: live.map { "\($0.status)" } ?? "none")
            ]
        }
        var differences: [ResponseDifference] = []
        if recorded.status != live.status {
            differences.append(ResponseDifference(.status, recorded: "\(recorded.status)", now: "\(live.status)"))
        }
        if comparesBodies {
            differences += bodyDifferences(
                recorded: recorded, live: live, credentials: credentials)
        }
        return differences
    }

    private static func bodyDifferences(
        recorded: CapturedResponse, live: LiveResponse, credentials: CredentialMap
    ) -> [ResponseDifference] {
        // A plain trace or a HAR without content has nothing to compare with.
        guard let recordedBody = recorded.body else { return [] }
        if recordedBody.truncated || live.truncated {
            // Only the kept bytes are known: compare what both kept.
            let common = min(recordedBody.bytes.count, live.body.count)
            let sameLength = recordedBody.length == Int64(live.bodyLength)
            let sameStart = RecordedTextMatcher.matches(
                recorded: Array(recordedBody.bytes.prefix(common)), live: Array(live.body.prefix(common)),
                credentials: credentials)
            if sameLength, sameStart { return [] }
            return [
                ResponseDifference(
                    .body, recorded: "\(recordedBody.length) bytes", now: "\(live.bodyLength) bytes, other content")
            ]
        }
        if let old = JSONValue.parse(recordedBody.bytes), let new = JSONValue.parse(live.body) {
            var comparison = JSONBodyComparison(credentials: credentials)
            comparison.compare(old, new)
            var differences = comparison.differences
            if comparison.unlisted > 0 {
                differences.append(
                    ResponseDifference(.body, recorded: "…", now: "\(comparison.unlisted) more differences"))
            }
            return differences
        }
        if RecordedTextMatcher.matches(recorded: recordedBody.bytes, live: live.body, credentials: credentials) {
            return []
        }
        return [
            ResponseDifference(
                .body, recorded: "\(recordedBody.length) bytes", now: "\(live.bodyLength) bytes, other content")
        ]
    }
}
