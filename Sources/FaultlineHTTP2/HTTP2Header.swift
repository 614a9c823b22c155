/// One field line of an HTTP/2 header block: a pseudo-header (`:method`, `:status`, …, RFC 9113
/// §8.3) or a regular field, in the order it came or is to be sent.
///
/// Names are lowercase on the wire (§8.2.1); nghttp2 rejects received uppercase names and
/// lowercases the names we send. Values keep their bytes: a received value that is not UTF-8
/// (obs-text, RFC 9110 §5.5) is read byte for byte as Latin-1 and written back the same way, so a
/// relayed field is unchanged.
public struct HTTP2Header: Sendable, Equatable, CustomStringConvertible {
    /// The field name, lowercase for HTTP/2 (pseudo-headers start with ":").
    public var name: String
    /// The field value, without surrounding whitespace (§8.2.1).
    public var value: String
    /// The field is sent with HPACK's "never indexed" representation (RFC 7541 §6.2.3): it never
    /// enters a compression table, which protects secrets from compression attacks (§7.1.3).
    /// Received fields carry the flag as the peer sent it; an intermediary must forward such a
    /// field with the same representation (§6.2.3).
    public var neverIndexed: Bool
    /// The value arrived as bytes that are not UTF-8 and was read as Latin-1 (one scalar per
    /// byte); it is encoded back the same way.
    var encodesAsLatin1 = false

    /// A field to send, or to compare with a received one.
    public init(_ name: String, _ value: String, neverIndexed: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndexed = neverIndexed
    }

    /// Whether this is a pseudo-header field (its name starts with ":", RFC 9113 §8.3).
    public var isPseudoHeader: Bool { name.utf8.first == UInt8(ascii: ":") }

    /// "name: value", for test failures and logs (values may be secrets: do not trace this).
    public var description: String { "\(name): \(value)" }

    // MARK: Bytes

    /// A field read from the wire: the name is a lowercase token (nghttp2 checked it), the value
    /// is UTF-8 if it decodes as such, Latin-1 otherwise.
    init(nameBytes: UnsafeBufferPointer<UInt8>, valueBytes: UnsafeBufferPointer<UInt8>, neverIndexed: Bool) {
        name = String(decoding: nameBytes, as: UTF8.self)
        // ASCII, nearly every value, is valid UTF-8 as it is; `String(validating:)` took over a
        // thousand instructions a field to find that out.
        if valueBytes.allSatisfy({ $0 < 0x80 }) {
            value = String(decoding: valueBytes, as: UTF8.self)
        } else if let text = String(validating: valueBytes, as: UTF8.self) {
            value = text
        } else {
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: valueBytes.lazy.map { Unicode.Scalar($0) })
            value = String(scalars)
            encodesAsLatin1 = true
        }
        self.neverIndexed = neverIndexed
    }

    /// How many bytes the value takes on the wire.
    var valueByteCount: Int {
        encodesAsLatin1 ? value.unicodeScalars.count : value.utf8.count
    }

    /// The value as it goes on the wire.
    var valueBytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: valueByteCount) { buffer, count in
            count = copyValueBytes(into: buffer, at: 0)
        }
    }

    /// Writes the value as it goes on the wire into `buffer` from `offset` (room for
    /// `valueByteCount` bytes must be there); returns the offset after it.
    func copyValueBytes(into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        guard encodesAsLatin1 else { return buffer[offset...].initialize(fromContentsOf: value.utf8) }
        var end = offset
        for scalar in value.unicodeScalars {
            buffer[end] = UInt8(truncatingIfNeeded: scalar.value)
            end += 1
        }
        return end
    }
}
