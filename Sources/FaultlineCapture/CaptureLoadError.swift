/// Why a capture, trace or HAR file could not be read: where (`FILE:LINE` when a line is at
/// fault) and what was expected.
public struct CaptureLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
