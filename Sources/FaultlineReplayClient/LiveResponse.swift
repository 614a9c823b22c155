public import FaultlineHTTP1

/// What the target answered to one replayed request.
public struct LiveResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    /// The body, the first `LiveResponse.keptBodyLimit` bytes of it at most.
    public var body: [UInt8]
    /// The whole body's length.
    public var bodyLength: Int

    /// Bytes of a live body kept for comparing and learning credentials; the rest is counted.
    public static let keptBodyLimit = 16 << 20

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], bodyLength: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyLength = bodyLength ?? body.count
    }

    /// True when part of the body was not kept.
    public var truncated: Bool { body.count < bodyLength }
}
