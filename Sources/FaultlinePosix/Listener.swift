public import FaultlineCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket served by every loop of a group.
///
/// The one socket is registered in each loop (with EPOLLEXCLUSIVE on Linux, so a new connection
/// wakes one loop, not all). `accept` runs on the thread of the loop that owns the new
/// connection (`connection.loop`), with a `StreamConnection` that is not started yet: set its
/// delegate, then `start()` it, right there. Which loop owns it depends on `Balancing`.
public final class Listener: Sendable {
    /// Which loop gets an accepted connection.
    public enum Balancing: Sendable {
        /// Loops in turn (`group.next()`): the loop that accepted hands the socket over when it
        /// is not its turn. EPOLLEXCLUSIVE wakes the first idle loop in the kernel's queue, so a
        /// burst of connections arriving at an idle server would otherwise all land on one loop
        /// (measured: 100 of 100 on loop 0), leaving the other cores without work.
        case roundRobin
        /// The loop that accepted keeps the connection: no cross-thread hand-off, but spreading
        /// depends on which loops happen to be busy.
        case acceptingLoop
    }

    /// The bound address; the real port when bound to port 0.
    public let localAddress: SocketAddress
    /// How long a loop stops accepting after a failure such as EMFILE.
    public let retryDelay: Duration
    private let socket: ListeningSocket
    let acceptors: [LoopBound<ListenerAcceptor>]
    private let stopped = Atomic<Bool>(false)

    /// Binds `address` (SO_REUSEADDR, never SO_REUSEPORT: a port someone listens on fails with a
    /// `SystemError` whose `isAddressInUse` is true), listens, and starts accepting on every loop
    /// of `group`. Accepted sockets are non-blocking with TCP_NODELAY and get `ids.next()`.
    /// `balancing` picks the loop that owns each connection (see `Balancing`).
    /// `onError` hears accept failures that are not the peer's doing (e.g. EMFILE, after which
    /// the loop pauses accepting for `retryDelay` rather than spin on the connection still
    /// waiting), with the listener's ``localAddress``; it runs on a loop thread, at most once per
    /// loop and `retryDelay`.
    public init(
        address: SocketAddress, group: EventLoopGroup, backlog: Int32 = 1024, ids: IDGenerator,
        balancing: Balancing = .roundRobin, retryDelay: Duration = .milliseconds(100),
        onError: (@Sendable (SystemError, SocketAddress) -> Void)? = nil,
        accept: @escaping @Sendable (StreamConnection) -> Void
    ) throws {
        let fd = try Posix.makeStreamSocket(family: address.family)
        do {
            try Posix.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: Int32(1))
            try Posix.bind(fd, to: address)
            try Posix.listen(fd, backlog: backlog)
        } catch {
            Posix.closeDescriptor(fd)
            throw error
        }
        let localAddress = Posix.localAddress(fd) ?? address
        self.localAddress = localAddress
        self.retryDelay = retryDelay
        let socket = ListeningSocket(fd: fd, users: group.loops.count)
        self.socket = socket
        let settings = ListenerAcceptor.Settings(
            ids: ids, group: balancing == .roundRobin ? group : nil, retryDelay: retryDelay,
            onError: onError.map { report in { @Sendable error in report(error, localAddress) } }, accept: accept)
        acceptors = group.loops.map { loop in
            LoopBound(handingOff: ListenerAcceptor(socket: socket, loop: loop, settings: settings), to: loop)
        }
        for acceptor in acceptors {
            acceptor.loop.execute { acceptor.value.start() }
        }
    }

    /// Stops accepting and closes the listening socket once every loop has let go of it.
    /// From a thread outside the group this waits until the socket is closed (the port is free
    /// again when it returns); from a loop thread it returns at once and the last loop closes it.
    /// Idempotent. Connections already accepted are not affected.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for acceptor in acceptors {
            let accepted = acceptor.loop.submit {
                acceptor.value.stop()
                acceptor.value.socket.release()
            }
            if !accepted { socket.release() }
        }
        if !acceptors.contains(where: { $0.loop.inEventLoop }) {
            socket.waitUntilClosed()
        }
    }
}

/// The listening descriptor shared by the acceptors of every loop; closed by the last release.
final class ListeningSocket: Sendable {
    let fd: Int32
    private let users: ConditionLock<Int>

    init(fd: Int32, users: Int) {
        self.fd = fd
        self.users = ConditionLock(users)
    }

    /// One loop is done with the descriptor; the last one closes it.
    func release() {
        users.withLock { count in
            count -= 1
            if count == 0 { Posix.closeDescriptor(fd) }
        }
        users.broadcast()
    }

    func waitUntilClosed() {
        users.wait(until: { $0 == 0 }, then: { _ in })
    }
}
