/// Computes the `BodySummary` of one message body as its bytes stream through the proxy.
///
/// Get one from `TraceRecorder.makeBodyDigest()` per body, call `update` with each chunk in
/// order, then `finish()` once the body ends. It is keyed with the recorder's key, so its
/// fingerprint equals `recorder.fingerprint` of the same bytes. Not thread-safe: use it on the
/// connection's own event-loop thread.
public final class BodyDigest {
    private var computation: HMACSHA256.Computation
    private var length: Int64 = 0
    private var summary: BodySummary?

    init(hmac: HMACSHA256) {
        computation = HMACSHA256.Computation(key: hmac)
    }

    /// Adds the next chunk of the body. Must not be called after `finish()`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(summary == nil, "BodyDigest.update called after finish()")
        computation.update(bytes)
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
        var output = JSONOutput(capacity: 19)
        withUnsafeTemporaryAllocation(byteCount: HMACSHA256.codeByteCount, alignment: 1) { code in
            computation.finish(into: code)
            output.appendFingerprint(code: UnsafeRawBufferPointer(code))
        }
        let result = BodySummary(length: length, fingerprint: output.text)
        summary = result
        return result
    }
}

// A BodyDigest holds an in-progress digest context that must be fed from one thread.
@available(*, unavailable)
extension BodyDigest: Sendable {}
