import FaultlineCore
import FaultlinePosix
import FaultlineProxy
import FaultlineTrace

/// A client connection of a plain listener accepted over the connection limit: it reads just
/// enough to tell HTTP/1 from h2c (``OverloadRefusal``), writes the 503 or closes, and traces
/// `connection.rejected`. After the 503 it sends FIN and reads what the client still sends until
/// the client closes, ``lingerTimeout`` passes or ``maximumDiscardedBytes`` came: closing with
/// unread bytes would make the kernel send RST, which can reach the client before it has read
/// the answer (the lingering close of RFC 9112 §9.6). Loop-thread confined; `LoopContext` keeps
/// it until the connection closes.
final class RefusedConnectionHandler: StreamConnectionDelegate {
    /// How long a client may take to send its first bytes.
    static let firstBytesTimeout: Duration = .seconds(2)
    /// How long the 503 waits for the client to close after it.
    static let lingerTimeout: Duration = .seconds(2)
    /// Most bytes read and dropped after the 503.
    static let maximumDiscardedBytes = 64 * 1024

    private let connection: StreamConnection
    private let context: LoopContext
    private let listener: ListenerConfiguration
    private let limit: Int
    private var refusal: OverloadRefusal
    private var timer: TimerHandle?
    private var answered = false
    private var discarded = 0

    init(connection: StreamConnection, context: LoopContext, listener: ListenerConfiguration, limit: Int) {
        self.connection = connection
        self.context = context
        self.listener = listener
        self.limit = limit
        self.refusal = OverloadRefusal(limit: limit)
    }

    func start() {
        connection.delegate = self
        connection.start()
        arm(Self.firstBytesTimeout) { [self] in decide(.close(detail: "no-request")) }
    }

    /// Closes now (the server is stopping).
    func close() {
        connection.close()
    }

    private func arm(_ delay: Duration, _ action: @escaping () -> Void) {
        if let timer { context.loop.cancelTimer(timer) }
        timer = context.loop.scheduleTimer(after: delay) { [self] in
            timer = nil
            action()
        }
    }

    private func decide(_ decision: OverloadRefusal.Decision) {
        switch decision {
        case .undecided:
            return
        case .close(let detail):
            context.recordRejection(connection, listener: listener, limit: limit, answer: "closed", detail: detail)
            connection.close()
        case .answer(let response):
            context.recordRejection(connection, listener: listener, limit: limit, answer: "503", detail: "http1")
            answered = true
            connection.write(response)
            connection.shutdownWrite()
            arm(Self.lingerTimeout) { [self] in connection.close() }
        }
    }

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard !answered else {
            discarded += bytes.count
            if discarded > Self.maximumDiscardedBytes { connection.close() }
            return
        }
        decide(refusal.receive(bytes))
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        guard !answered else {
            // The client has read the 503 or given up; our FIN may still be queued behind it.
            connection.closeAfterFlush()
            return
        }
        decide(refusal.receiveEOF())
        if answered { connection.closeAfterFlush() }
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        if let timer { context.loop.cancelTimer(timer) }
        timer = nil
        context.refusalEnded(connection.id)
    }
}
