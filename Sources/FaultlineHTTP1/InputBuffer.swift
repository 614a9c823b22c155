/// The bytes a decoder has received but not yet decoded.
///
/// Theory of operation: bytes are appended at the end and consumed from `readIndex`. Body events
/// hand out slices of `storage` (no copy). Before each append the consumed prefix is dropped when
/// that is cheap: always when everything was consumed, otherwise only when the consumed prefix is
/// at least as long as the unread rest, so each byte is moved at most once per time it is consumed
/// (amortised O(1)) and storage never holds more than twice the unread bytes plus one append.
struct InputBuffer: Sendable {
    private(set) var storage: [UInt8] = []
    private(set) var readIndex = 0

    /// Bytes received and not yet consumed.
    var readableCount: Int { storage.count &- readIndex }

    /// Allocated size of the storage, for memory-bound tests.
    var capacity: Int { storage.capacity }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        compact()
        storage.append(contentsOf: bytes)
    }

    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append($0) }
        if appended == nil {
            compact()
            storage.append(contentsOf: bytes)
        }
    }

    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == storage.count {
            storage.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= storage.count - readIndex {
            storage.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    /// Gives the storage back when every byte was consumed (emptying keeps an array's capacity,
    /// which an idle keep-alive connection would otherwise carry until its next request).
    mutating func releaseStorageIfEmpty() {
        guard readableCount == 0, storage.capacity > 0 else { return }
        storage = []
        readIndex = 0
    }

    /// Marks the next `count` bytes as decoded.
    mutating func consume(_ count: Int) {
        precondition(count >= 0 && count <= readableCount, "consumed more than was buffered")
        readIndex += count
    }

    /// The next `count` bytes as a slice sharing the storage, consumed.
    mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        precondition(count >= 0 && count <= readableCount, "took more than was buffered")
        let slice = storage[readIndex..<(readIndex + count)]
        readIndex += count
        return slice
    }

    /// All unread bytes, which the buffer then forgets.
    mutating func takeAll() -> [UInt8] {
        let rest = Array(storage[readIndex...])
        storage.removeAll(keepingCapacity: true)
        readIndex = 0
        return rest
    }

    /// The unread byte at `offset` from the read position.
    subscript(offset: Int) -> UInt8 { storage[readIndex + offset] }

    /// Calls `body` with the unread bytes; index 0 is the read position.
    func withReadableBytes<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeBufferPointer { (all) throws(Failure) -> Result in
            try body(UnsafeBufferPointer(rebasing: all[readIndex...]))
        }
    }
}
