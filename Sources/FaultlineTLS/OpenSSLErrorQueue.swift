import COpenSSL

/// OpenSSL's per-thread error queue: cleared before each call whose failure we inspect, drained
/// into a value after it fails, so a stale entry from an earlier call never explains a new one.
enum OpenSSLErrorQueue {
    /// One entry of the queue.
    struct Entry: Equatable {
        /// `ERR_GET_LIB`: which part of OpenSSL raised it (`ERR_LIB_SSL`, `ERR_LIB_X509`, ...).
        let library: Int32
        /// `ERR_GET_REASON`: the `*_R_*` constant.
        let reason: Int32
        /// OpenSSL's text for the reason, e.g. "tlsv1 alert unknown ca".
        let text: String
    }

    /// Forgets whatever earlier calls left in this thread's queue.
    static func clear() {
        ERR_clear_error()
    }

    /// Takes every entry out of this thread's queue, oldest first.
    static func drain() -> [Entry] {
        var entries: [Entry] = []
        while true {
            let packed = ERR_get_error()
            if packed == 0 { break }
            let reason = ERR_GET_REASON(packed)
            let text = ERR_reason_error_string(packed).map { String(cString: $0) } ?? "reason \(reason)"
            entries.append(Entry(library: ERR_GET_LIB(packed), reason: reason, text: text))
        }
        return entries
    }

    /// The queue's reasons joined for a description, or `fallback` when the queue was empty.
    static func summary(_ entries: [Entry], fallback: String = "no reason given by OpenSSL") -> String {
        if entries.isEmpty { return fallback }
        var seen: [String] = []
        for entry in entries where !seen.contains(entry.text) { seen.append(entry.text) }
        return seen.joined(separator: "; ")
    }

    /// Drains the queue into an error with `code`, describing `what` failed.
    static func error(_ code: String, _ what: String) -> TLSError {
        TLSError(code: code, description: "\(what): \(summary(drain())).")
    }
}
