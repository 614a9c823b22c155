import FaultlineCore
import FaultlinePosix

/// A byte stream to the target over a blocking socket: plain TCP (`PlainReplayTransport`) or
/// TLS over it (`TLSReplayTransport`). One thread uses it; every call ends by its deadline.
protocol ReplayTransport: AnyObject {
    /// Sends every byte, or throws.
    func send(_ bytes: [UInt8], deadline: MonotonicInstant) throws(ReplayTransportError)
    /// Some bytes, or none at the end of the stream; throws on an error or when the deadline passes.
    func read(deadline: MonotonicInstant) throws(ReplayTransportError) -> [UInt8]
    /// True when the peer has closed (or broken) the connection while it sat idle: checked
    /// without waiting, before a kept-alive connection carries another request.
    func peerHasClosed() -> Bool
    func close()
}

/// Why the target could not be reached or stopped answering, in words for the report.
public struct ReplayTransportError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The deadline passed.
    public let timedOut: Bool

    init(_ description: String, timedOut: Bool = false) {
        self.description = description
        self.timedOut = timedOut
    }

    /// `connect: Connection refused (errno 111)`, `read: timed out`; `place` (an address) first.
    init(_ error: SystemError, at place: String? = nil) {
        let text = error.isTimedOut ? "\(error.call): timed out (--timeout)" : "\(error)"
        self.init(place.map { "\($0): \(text)" } ?? text, timedOut: error.isTimedOut)
    }
}

/// Plain TCP.
final class PlainReplayTransport: ReplayTransport {
    private let socket: BlockingConnection

    init(socket: BlockingConnection) {
        self.socket = socket
    }

    func send(_ bytes: [UInt8], deadline: MonotonicInstant) throws(ReplayTransportError) {
        do { try socket.sendAll(bytes, deadline: deadline) } catch { throw ReplayTransportError(error) }
    }

    func read(deadline: MonotonicInstant) throws(ReplayTransportError) -> [UInt8] {
        do { return try socket.read(deadline: deadline) } catch { throw ReplayTransportError(error) }
    }

    func peerHasClosed() -> Bool {
        socket.peerHasClosed()
    }

    func close() {
        socket.close()
    }
}

extension BlockingConnection {
    /// Reads without waiting: the peer closed (EOF), broke the connection, or sent bytes nobody
    /// asked for (no request is in flight) — any of which ends its use. Nothing to read yet
    /// (`ETIMEDOUT` at once) means it is still open.
    func peerHasClosed() -> Bool {
        do {
            _ = try read(maximum: 1, deadline: .now())
            return true
        } catch {
            return !error.isTimedOut
        }
    }
}
