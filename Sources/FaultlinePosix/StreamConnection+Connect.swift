public import FaultlineCore

extension StreamConnection {
    /// Opens a TCP connection, trying `addresses` in order until one accepts.
    ///
    /// Call on `loop`'s thread. Each attempt is a non-blocking connect; a refused or unreachable
    /// address moves on to the next one. `timeout` bounds the whole attempt, across all addresses.
    /// `completion` runs once, on the loop thread, never from inside this call: with a connection
    /// (TCP_NODELAY set, not started yet: set its delegate and call `start()`), or with a
    /// `ConnectError` naming the last address and system error.
    public static func connect(
        to addresses: [SocketAddress], id: ConnectionID, on loop: EventLoop, timeout: Duration,
        completion: @escaping (Result<StreamConnection, ConnectError>) -> Void
    ) {
        loop.preconditionInEventLoop()
        let attempt = PendingConnect(addresses: addresses, id: id, loop: loop, completion: completion)
        attempt.begin(timeout: timeout)
    }
}

/// One `StreamConnection.connect` in flight: walks the address list, owns the socket being
/// connected, and hands it to a new `StreamConnection` on success.
///
/// Loop-thread confined. Registered with the loop only while waiting for a handshake, so the
/// loop's table (plus the timeout timer's closure) keeps it alive exactly as long as needed.
final class PendingConnect: SelectableHandler {
    private let addresses: [SocketAddress]
    private let id: ConnectionID
    private let loop: EventLoop
    private var completion: ((Result<StreamConnection, ConnectError>) -> Void)?
    private var nextIndex = 0
    private var fd: Int32 = -1
    private var token: RegistrationToken?
    private var timer: TimerHandle?
    private var lastError: SystemError?
    private var lastAddress: SocketAddress?

    init(
        addresses: [SocketAddress], id: ConnectionID, loop: EventLoop,
        completion: @escaping (Result<StreamConnection, ConnectError>) -> Void
    ) {
        self.addresses = addresses
        self.id = id
        self.loop = loop
        self.completion = completion
    }

    func begin(timeout: Duration) {
        timer = loop.scheduleTimer(after: timeout) { [self] in
            timer = nil
            finish(.failure(error(.timedOut)))
        }
        tryNextAddress()
    }

    private func error(_ reason: ConnectError.Reason) -> ConnectError {
        ConnectError(reason: reason, lastError: lastError, lastAddress: lastAddress, attempts: nextIndex)
    }

    /// Starts connecting to the next address; on immediate outcomes, keeps going or finishes.
    private func tryNextAddress() {
        while completion != nil && nextIndex < addresses.count {
            let address = addresses[nextIndex]
            nextIndex += 1
            lastAddress = address
            do throws(SystemError) {
                fd = try Posix.makeStreamSocket(family: address.family)
                try Posix.setNoDelay(fd)
                if try Posix.connect(fd, to: address) {
                    // Connected at once (possible on loopback): still complete asynchronously.
                    loop.executeLocal { [self] in succeed() }
                    return
                }
                token = try loop.register(fd: fd, handler: self, interest: .write)
                return
            } catch {
                lastError = error
                closeSocket()
            }
        }
        guard completion != nil else { return }
        let failure = addresses.isEmpty ? error(.noAddresses) : error(ConnectError.Reason.classify(lastError!))
        loop.executeLocal { [self] in finish(.failure(failure)) }
    }

    func handleReadiness(_ events: ReadinessEvents) {
        guard completion != nil, fd >= 0 else { return }
        let code: Int32
        do throws(SystemError) {
            code = try Posix.pendingError(fd)
        } catch {
            code = error.errno
        }
        if code == 0 {
            succeed()
        } else {
            lastError = SystemError(errno: code, call: "connect")
            closeSocket()
            tryNextAddress()
        }
    }

    func closeForLoopShutdown() {
        finish(.failure(error(.loopShutdown)))
    }

    private func succeed() {
        guard completion != nil, fd >= 0 else { return }
        if let token {
            loop.deregister(token, interest: .write)
            self.token = nil
        }
        let connection = StreamConnection(
            fd: fd, id: id, loop: loop, localAddress: Posix.localAddress(fd), remoteAddress: Posix.peerAddress(fd))
        fd = -1
        finish(.success(connection))
    }

    private func closeSocket() {
        if let token {
            loop.deregister(token, interest: .write)
            self.token = nil
        }
        if fd >= 0 {
            Posix.closeDescriptor(fd)
            fd = -1
        }
    }

    /// Delivers the outcome once; cleans up whatever is still held.
    private func finish(_ result: Result<StreamConnection, ConnectError>) {
        guard let completion else { return }
        self.completion = nil
        if let timer {
            loop.cancelTimer(timer)
            self.timer = nil
        }
        closeSocket()
        completion(result)
    }
}
