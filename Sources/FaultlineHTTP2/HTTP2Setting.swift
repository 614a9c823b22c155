/// One parameter of a SETTINGS frame (RFC 9113 §6.5.1): an identifier and its value.
public struct HTTP2Setting: Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit identifier (§6.5.2), e.g. 0x3 for SETTINGS_MAX_CONCURRENT_STREAMS.
    public var identifier: UInt16
    public var value: UInt32

    /// A parameter as a SETTINGS frame carries it.
    public init(identifier: UInt16, value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    // The identifiers of RFC 9113 §6.5.2 (and the two extensions nghttp2 1.52 knows), for
    // ``identifier``.

    public static let headerTableSize: UInt16 = 0x1
    public static let enablePush: UInt16 = 0x2
    public static let maxConcurrentStreams: UInt16 = 0x3
    public static let initialWindowSize: UInt16 = 0x4
    public static let maxFrameSize: UInt16 = 0x5
    public static let maxHeaderListSize: UInt16 = 0x6
    /// RFC 8441 §3.
    public static let enableConnectProtocol: UInt16 = 0x8
    /// RFC 9218 §2.1.
    public static let noRFC7540Priorities: UInt16 = 0x9

    /// The registered name, e.g. "SETTINGS_MAX_CONCURRENT_STREAMS"; "SETTINGS_0x2a" for others
    /// (an endpoint ignores unknown settings, §6.5.2).
    public var name: String {
        switch identifier {
        case Self.headerTableSize: "SETTINGS_HEADER_TABLE_SIZE"
        case Self.enablePush: "SETTINGS_ENABLE_PUSH"
        case Self.maxConcurrentStreams: "SETTINGS_MAX_CONCURRENT_STREAMS"
        case Self.initialWindowSize: "SETTINGS_INITIAL_WINDOW_SIZE"
        case Self.maxFrameSize: "SETTINGS_MAX_FRAME_SIZE"
        case Self.maxHeaderListSize: "SETTINGS_MAX_HEADER_LIST_SIZE"
        case Self.enableConnectProtocol: "SETTINGS_ENABLE_CONNECT_PROTOCOL"
        case Self.noRFC7540Priorities: "SETTINGS_NO_RFC7540_PRIORITIES"
        default: "SETTINGS_0x" + String(identifier, radix: 16)
        }
    }

    /// "NAME=value".
    public var description: String { "\(name)=\(value)" }
}
