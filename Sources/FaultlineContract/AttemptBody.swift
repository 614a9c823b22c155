import FaultlineCore
import FaultlineTrace
import Foundation

/// What the trace tells of one attempt's request body: its length (as forwarded, else as the head
/// announced it), its keyed fingerprint when it was forwarded, and, in a capture, its first bytes.
///
/// The retry clauses compare a later attempt's body with an earlier one's to decide whether the
/// later one is the same operation sent again, and whether it lost what the earlier one carried.
struct AttemptBody: Sendable {
    /// How a later attempt's body compares with an earlier one's.
    enum Relation: Sendable, Equatable {
        /// Equal fingerprints, or (when a side was never forwarded) equal lengths.
        case same
        /// The earlier body had bytes and this one has none.
        case empty
        /// A capture shows this body is a proper prefix of the earlier one.
        case truncated
        /// Known to differ, and not by losing its tail.
        case different
        /// Nothing to compare (a chunked request a rule answered, say).
        case unknown
    }

    /// Body bytes on the wire, nil when neither a forward nor the head told.
    var length: Int64?
    /// `fp:…` of the body as forwarded; nil when it never reached the upstream.
    var fingerprint: String?
    /// A capture's first bytes of the body (secrets as pseudonyms), nil in a trace without bodies.
    var captured: CapturedPrefix?

    /// `relation(to:)` as the operation test of `bounded-retry`: what is not known to differ is the same.
    func mayBeSameBody(as earlier: AttemptBody) -> Bool {
        let relation = relation(to: earlier)
        return relation == .same || relation == .unknown
    }

    /// How this body (a later attempt's) compares with `earlier`'s.
    func relation(to earlier: AttemptBody) -> Relation {
        if length == 0, (earlier.length ?? 0) > 0 { return .empty }
        if let fingerprint, let earlierFingerprint = earlier.fingerprint {
            return fingerprint == earlierFingerprint ? .same : differing(from: earlier)
        }
        if let length, let earlierLength = earlier.length {
            return length == earlierLength ? .same : differing(from: earlier)
        }
        return .unknown
    }

    private func differing(from earlier: AttemptBody) -> Relation {
        guard let captured, let earlierCaptured = earlier.captured,
            captured.isProperPrefix(of: earlierCaptured)
        else { return .different }
        return .truncated
    }
}

/// The first bytes of a body that a capture kept (`content` of `request.forwarded`), at most
/// ``limit`` of them: enough to tell a body cut short from another body.
struct CapturedPrefix: Sendable, Equatable {
    /// Bytes kept per attempt: the checker streams traces of any length and keeps a few attempts
    /// per operation.
    static let limit = 64 * 1024

    let bytes: [UInt8]
    /// Whether `bytes` is the whole body as captured (not cut by the capture's limit or ``limit``).
    let complete: Bool

    /// Reads a `content` field (`{"length", "encoding": "utf8" | "base64", "data", "truncated"}`).
    init?(content: [String: JSONValue]) {
        guard let data = content["data"]?.stringValue else { return nil }
        var bytes: [UInt8]
        if content["encoding"]?.stringValue == "base64" {
            guard let decoded = Data(base64Encoded: data) else { return nil }
            bytes = Array(decoded)
        } else {
            bytes = Array(data.utf8)
        }
        var complete = !(content["truncated"]?.boolValue ?? false)
        if bytes.count > Self.limit {
            bytes.removeLast(bytes.count - Self.limit)
            complete = false
        }
        self.bytes = bytes
        self.complete = complete
    }

    /// Whether this whole body is the beginning, and not all, of `other`.
    func isProperPrefix(of other: CapturedPrefix) -> Bool {
        guard complete, !bytes.isEmpty else { return false }
        guard bytes.count < other.bytes.count || (bytes.count == other.bytes.count && !other.complete) else {
            return false
        }
        return other.bytes.starts(with: bytes)
    }
}
