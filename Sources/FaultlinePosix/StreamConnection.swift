public import FaultlineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking TCP stream owned by one event loop. Use it only on that loop's thread.
///
/// Get one from a `Listener` (accepted) or from `StreamConnection.connect`; set `delegate`, then
/// `start()` to begin reading. Writes go out at once when the kernel takes them; the rest is
/// queued and flushed with `writev` when the socket becomes writable.
///
/// Theory of operation:
/// - Lifecycle: `created` (not reading yet; writes already work) → `started` → `closed`. Only
///   `closeNow` moves to `closed`; it deregisters, closes the descriptor, drops queued output
///   and tells the delegate once. Every path re-checks the state after each delegate callback,
///   because the delegate may have closed the connection from inside it.
/// - Interest: read while started, not paused and not at EOF; write while output is queued.
///   An empty interest is not registered in the kernel at all, so a paused, hung-up socket cannot
///   spin the loop. The registration (and the loop's strong reference) lives from the first
///   non-empty interest to close.
/// - Errors met inside a call the user made (`write`, `shutdownWrite`) are not delivered from
///   inside that call: the connection stops writing and closes on the next loop tick with the
///   error. Errors met while handling readiness close at once. `close()` itself tells the
///   delegate before it returns.
public final class StreamConnection {
    /// The loop that owns this connection; all calls must come from its thread.
    public let loop: EventLoop
    /// Identifies the connection in traces; allocated by whoever created it.
    public let id: ConnectionID
    /// Our end of the connection (nil if the kernel could not tell).
    public let localAddress: SocketAddress?
    /// The peer's end of the connection (nil if the kernel could not tell).
    public let remoteAddress: SocketAddress?
    /// `remoteAddress` as text (`127.0.0.1:8080`, `[::1]:8080`), formatted on first use and kept:
    /// a pooled upstream connection names its peer in the trace for every request it carries,
    /// and formatting an address (`inet_ntop`, the port) costs about 2,700 instructions.
    public private(set) lazy var remoteAddressText: String? = remoteAddress?.description
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    /// Receives the connection's events. Set it before `start()`. Held weakly.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    public weak var delegate: (any StreamConnectionDelegate)?

    enum Lifecycle {
        case created
        case started
        case closed
    }

    private(set) var lifecycle = Lifecycle.created
    var fd: Int32
    var token: RegistrationToken?
    /// What is registered in the kernel right now.
    var registeredInterest = SelectorInterest.none
    var readPaused = false
    var readEOF = false
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var outbound = OutboundBuffer()
    var writeShutdownRequested = false
    var writeShutdownDone = false
    var closeAfterFlushRequested = false
    /// A failure found inside a user call, waiting for the next tick to close the connection.
    var pendingError: SystemError?
    /// See ``outboundStalledSince``.
    var outboundProgressAt: MonotonicInstant?

    /// Reads per readiness event before yielding to other connections (fairness).
    static let maximumReadsPerEvent = 4

    /// Wraps a connected, non-blocking socket. The connection owns `fd` from now on.
    init(fd: Int32, id: ConnectionID, loop: EventLoop, localAddress: SocketAddress?, remoteAddress: SocketAddress?) {
        self.fd = fd
        self.id = id
        self.loop = loop
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
    }

    deinit {
        // Only a connection that never registered can be released while open (a registered one
        // is retained by its loop until it closes).
        if fd >= 0 { Posix.closeDescriptor(fd) }
    }

    // MARK: - Public state

    /// True until the connection closes (by us, by the peer's reset, or by loop shutdown).
    public var isOpen: Bool { lifecycle != .closed }

    /// Bytes accepted by `write` that the kernel has not taken yet.
    public var outboundBufferedBytes: Int { outbound.byteCount }

    /// While output is queued (``outboundBufferedBytes`` above 0): the loop's time when a write
    /// last moved some of it into the kernel, or when it was queued if none has since; nil while
    /// nothing is queued. How long the peer has read nothing of what waits for it (a send
    /// timeout, as nginx's `send_timeout`, counts between two writes that make progress).
    public var outboundStalledSince: MonotonicInstant? {
        outbound.isEmpty ? nil : outboundProgressAt
    }

    /// Bytes the kernel holds in the socket's send queue (not sent, or not acknowledged yet); nil
    /// once closed or when the kernel does not say. One system call: for a send timeout's
    /// occasional look, not for every write. It shrinks while the peer reads, even when the
    /// socket is not writable again yet (the kernel wakes writers only once much of a large
    /// send buffer is free).
    public var kernelQueuedBytes: Int? {
        fd >= 0 ? Posix.kernelQueuedOutput(fd) : nil
    }

    /// True while `setReadingPaused(true)` is in effect.
    public var isReadingPaused: Bool { readPaused }

    // MARK: - Control

    /// Begins reading: from now on the delegate hears `didRead`, EOF and close. Call once, on the
    /// loop thread, after setting `delegate`.
    public func start() {
        loop.preconditionInEventLoop()
        guard lifecycle == .created else {
            precondition(lifecycle == .closed, "StreamConnection \(id) started twice")
            return
        }
        lifecycle = .started
        updateInterest()
    }

    /// Backpressure: `true` stops reading (the kernel buffers fill and TCP slows the peer down);
    /// `false` resumes. Takes effect at once, even inside `didRead`.
    public func setReadingPaused(_ paused: Bool) {
        loop.assertInEventLoop()
        guard lifecycle != .closed, readPaused != paused else { return }
        readPaused = paused
        updateInterest()
    }

    /// Sends FIN once everything written so far has been flushed; we can still read afterwards.
    /// Later writes are discarded.
    public func shutdownWrite() {
        loop.assertInEventLoop()
        guard lifecycle != .closed, !writeShutdownRequested else { return }
        writeShutdownRequested = true
        if outbound.isEmpty { performShutdownWrite(deferringErrors: true) }
    }

    /// Closes once everything written so far has been flushed (at once when nothing is queued).
    /// Later writes are discarded; reading stops now.
    public func closeAfterFlush() {
        loop.assertInEventLoop()
        guard lifecycle != .closed else { return }
        if outbound.isEmpty && pendingError == nil {
            closeNow(error: nil)
            return
        }
        closeAfterFlushRequested = true
        updateInterest()
    }

    /// Closes now, discarding queued output. The delegate hears `didCloseWith(nil)` before this
    /// returns (unless it already heard about a close). Idempotent.
    public func close() {
        loop.assertInEventLoop()
        closeNow(error: nil)
    }

    /// Closes with `SO_LINGER {1, 0}`, so the kernel sends RST instead of FIN: the peer's next
    /// read or write fails with ECONNRESET. For fault injection. Otherwise like `close()`.
    public func resetAndClose() {
        loop.assertInEventLoop()
        guard lifecycle != .closed else { return }
        // A failure here (the socket is already reset) changes nothing for the caller.
        try? Posix.setOption(fd, level: SOL_SOCKET, name: SO_LINGER, value: linger(l_onoff: 1, l_linger: 0))
        closeNow(error: nil)
    }

    // MARK: - Internals shared with the I/O extension

    /// The interest the connection needs right now.
    var wantedInterest: SelectorInterest {
        guard lifecycle != .closed, pendingError == nil else { return .none }
        var interest = SelectorInterest.none
        if isReading { interest.insert(.read) }
        if !outbound.isEmpty { interest.insert(.write) }
        return interest
    }

    /// Reading is on: started, not paused, not at EOF, not waiting to close.
    var isReading: Bool {
        lifecycle == .started && !readPaused && !readEOF && !closeAfterFlushRequested && pendingError == nil
    }

    /// Brings the kernel registration in line with `wantedInterest`.
    func updateInterest() {
        let wanted = wantedInterest
        guard wanted != registeredInterest else { return }
        do throws(SystemError) {
            if let token {
                try loop.changeInterest(token, from: registeredInterest, to: wanted)
            } else {
                token = try loop.register(fd: fd, handler: self, interest: wanted)
            }
            registeredInterest = wanted
        } catch {
            failLater(error)
        }
    }

    /// The single way to the closed state.
    func closeNow(error: SystemError?) {
        guard lifecycle != .closed else { return }
        lifecycle = .closed
        if let token {
            loop.deregister(token, interest: registeredInterest)
            self.token = nil
        }
        registeredInterest = .none
        Posix.closeDescriptor(fd)
        fd = -1
        outbound.removeAll()
        delegate?.streamConnection(self, didCloseWith: error)
    }

    /// Records `error` from inside a user call and closes on the next tick, so the caller never
    /// sees its delegate called back from deep inside `write`.
    func failLater(_ error: SystemError) {
        guard lifecycle != .closed, pendingError == nil else { return }
        pendingError = error
        outbound.removeAll()
        loop.executeLocal { [self] in
            if let pendingError { closeNow(error: pendingError) }
        }
    }

    func performShutdownWrite(deferringErrors: Bool) {
        guard !writeShutdownDone else { return }
        writeShutdownDone = true
        do throws(SystemError) {
            try Posix.shutdownWrite(fd)
        } catch {
            if deferringErrors { failLater(error) } else { closeNow(error: error) }
        }
    }
}
