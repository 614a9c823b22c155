/// Why a capture or HAR file could not be written: the path and the system's reason.
public struct CaptureWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
