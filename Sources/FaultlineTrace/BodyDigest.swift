/// Computes the `BodySummary` of one message body as its bytes stream through the proxy.
///
/// Get one from `TraceRecorder.makeBodyDigest()` per body, call `update` with each chunk in
/// order, then `finish()` once the body ends. It is keyed with the recorder's key, so its
/// fingerprint equals `recorder.fingerprint` of the same bytes. Not thread-safe: use it on the
/// connection's own event-loop thread.
public final class BodyDigest {
    private let key: HMACSHA256
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    /// Started by the first byte (while `length` is 0 there is none): most bodies through a
    /// proxy are empty (GET, 204, 304), and an HMAC context costs three allocations to start and
    /// one more to finish.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var computation: HMACSHA256.Computation?
    /// The summary of an empty body under this key, worked out once by the recorder.
    private let emptySummary: BodySummary
    private var length: Int64 = 0
    private var summary: BodySummary?

    init(hmac: HMACSHA256, emptySummary: BodySummary) {
        key = hmac
        self.emptySummary = emptySummary
    }

    /// Adds the next chunk of the body. Must not be called after `finish()`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(summary == nil, "BodyDigest.update called after finish()")
        guard !bytes.isEmpty else { return }
        if length == 0 { computation = HMACSHA256.Computation(key: key) }
        computation?.update(bytes)
        length += Int64(bytes.count)
    }

    /// Adds the next chunk of the body. Must not be called after `finish()`.
    public func update(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if handled == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Ends the body and returns its length and fingerprint. Calling it again returns the same summary.
    public func finish() -> BodySummary {
        if let summary { return summary }
        guard length > 0, var computation = computation.take() else {
            summary = emptySummary
            return emptySummary
        }
        let result = Self.summary(of: &computation, length: length)
        summary = result
        return result
    }

    /// Finishes `computation` into the summary of a body of `length` bytes.
    static func summary(of computation: inout HMACSHA256.Computation, length: Int64) -> BodySummary {
        var output = JSONOutput(capacity: 19)
        output.appendFingerprint(computation.finishFingerprint())
        return BodySummary(length: length, fingerprint: output.text)
    }
}

// A BodyDigest holds an in-progress digest context that must be fed from one thread.
@available(*, unavailable)
extension BodyDigest: Sendable {}
