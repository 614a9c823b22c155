/// A message body as a capture keeps it: its first bytes, up to the capture's body limit, and
/// its whole length, so a reader knows when it was cut (`truncated`).
public struct CapturedBody: Sendable, Equatable {
    /// The bytes kept (all of them unless `truncated`).
    public var bytes: [UInt8]
    /// The length of the whole body.
    public var length: Int64
    /// The body's `Content-Type`, which says how to find its secrets (JSON or a form).
    public var contentType: String?

    public init(bytes: [UInt8], length: Int64, contentType: String?) {
        self.bytes = bytes
        self.length = length
        self.contentType = contentType
    }

    /// True when only the first `bytes.count` of `length` bytes were kept.
    public var truncated: Bool { Int64(bytes.count) < length }
}

/// Collects a body for a capture as it streams: keeps up to `limit` bytes and counts the rest.
public struct CapturedBodyBuffer: Sendable {
    public let limit: Int
    public private(set) var bytes: [UInt8] = []
    public private(set) var length: Int64 = 0

    public init(limit: Int) {
        self.limit = limit
    }

    public mutating func append(_ chunk: some Collection<UInt8>) {
        length += Int64(chunk.count)
        let room = limit - bytes.count
        guard room > 0 else { return }
        bytes.append(contentsOf: chunk.prefix(room))
    }

    /// The body so far, with the content type its head gave.
    public func body(contentType: String?) -> CapturedBody {
        CapturedBody(bytes: bytes, length: length, contentType: contentType)
    }
}
