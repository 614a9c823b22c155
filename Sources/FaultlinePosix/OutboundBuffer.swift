#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes a connection accepted but the kernel has not taken yet, as a queue of chunks written
/// with `writev`.
///
/// Chunks are raw allocations, so their addresses stay put and can go straight into `iovec`s.
/// Small writes are appended to the spare room of the last chunk; a chunk is freed as soon as it
/// has been written completely. Noncopyable, so exactly one owner frees the memory.
struct OutboundBuffer: ~Copyable {
    private struct Chunk {
        let base: UnsafeMutableRawPointer
        let capacity: Int
        var start: Int
        var end: Int

        var readable: Int { end - start }
        var spare: Int { capacity - end }
    }

    /// Chunks from `head` on are live; the prefix is compacted away from time to time.
    private var chunks: [Chunk] = []
    private var head = 0
    /// Bytes waiting to be written.
    private(set) var byteCount = 0

    /// Allocation size for small writes, so a burst of them shares one chunk.
    static let minimumChunkSize = 16 * 1024
    /// At most this many `iovec`s per `writev` (well under IOV_MAX, which is 1024 on Linux).
    static let maximumVectors = 64

    init() {}

    deinit {
        for index in head..<chunks.count { chunks[index].base.deallocate() }
    }

    var isEmpty: Bool { byteCount == 0 }

    /// Copies `bytes` to the end of the queue.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard var source = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        byteCount += remaining
        if head < chunks.count, chunks[chunks.count - 1].spare > 0 {
            let last = chunks.count - 1
            let count = min(remaining, chunks[last].spare)
            (chunks[last].base + chunks[last].end).copyMemory(from: source, byteCount: count)
            chunks[last].end += count
            source += count
            remaining -= count
        }
        guard remaining > 0 else { return }
        let capacity = max(remaining, Self.minimumChunkSize)
        let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        base.copyMemory(from: source, byteCount: remaining)
        chunks.append(Chunk(base: base, capacity: capacity, start: 0, end: remaining))
    }

    /// Writes as much as the kernel takes with one `writev`; returns the bytes written.
    mutating func write(to fd: Int32) throws(SystemError) -> IOResult<Int> {
        let vectorCount = min(chunks.count - head, Self.maximumVectors)
        guard vectorCount > 0 else { return .processed(0) }
        let result = try withUnsafeTemporaryAllocation(of: iovec.self, capacity: vectorCount) {
            (vectors) throws(SystemError) -> IOResult<Int> in
            for offset in 0..<vectorCount {
                let chunk = chunks[head + offset]
                vectors.initializeElement(
                    at: offset, to: iovec(iov_base: chunk.base + chunk.start, iov_len: chunk.readable))
            }
            return try Posix.writev(fd, UnsafeBufferPointer(vectors))
        }
        if case .processed(let written) = result { consume(written) }
        return result
    }

    /// Drops everything queued (the connection closed).
    mutating func removeAll() {
        for index in head..<chunks.count { chunks[index].base.deallocate() }
        chunks.removeAll(keepingCapacity: true)
        head = 0
        byteCount = 0
    }

    private mutating func consume(_ written: Int) {
        precondition(written <= byteCount, "writev reported more bytes than were queued")
        byteCount -= written
        var left = written
        while left > 0 {
            let available = chunks[head].readable
            if left < available {
                chunks[head].start += left
                return
            }
            left -= available
            chunks[head].base.deallocate()
            head += 1
        }
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32 && head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
