/// Size limits the decoders enforce while bytes arrive, so a peer cannot make them buffer without bound.
public struct HTTP1Limits: Sendable, Equatable {
    /// Longest request-line or status-line, without its line terminator (414 for requests).
    public var maxRequestLineLength: Int
    /// Most bytes of all field lines of a head, line terminators included, final empty line excluded (431).
    public var maxHeaderSectionLength: Int
    /// Most field lines in a head, and in a trailer section (431).
    public var maxHeaderCount: Int
    /// Longest chunk-size line (size and extensions), without its CRLF (400).
    public var maxChunkLineLength: Int
    /// Most bytes of all trailer field lines, line terminators included (431).
    public var maxTrailerSectionLength: Int

    /// Limits with the given values; the defaults are those of ``default``.
    public init(
        maxRequestLineLength: Int = 8192,
        maxHeaderSectionLength: Int = 65536,
        maxHeaderCount: Int = 128,
        maxChunkLineLength: Int = 4096,
        maxTrailerSectionLength: Int = 16384
    ) {
        self.maxRequestLineLength = maxRequestLineLength
        self.maxHeaderSectionLength = maxHeaderSectionLength
        self.maxHeaderCount = maxHeaderCount
        self.maxChunkLineLength = maxChunkLineLength
        self.maxTrailerSectionLength = maxTrailerSectionLength
    }

    /// 8 KiB request-line, 64 KiB header section, 128 fields, 4 KiB chunk line, 16 KiB trailers.
    public static let `default` = HTTP1Limits()
}
