import FaultlineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listener's presence in one loop: registered for readability of the shared listening socket,
/// it accepts connections for that loop. Loop-thread confined.
final class ListenerAcceptor: SelectableHandler {
    struct Settings: Sendable {
        let ids: IDGenerator
        /// The group to take turns in, or nil to keep connections on the accepting loop.
        let group: EventLoopGroup?
        let retryDelay: Duration
        let onError: (@Sendable (SystemError) -> Void)?
        let accept: @Sendable (StreamConnection) -> Void
    }

    let socket: ListeningSocket
    private let loop: EventLoop
    private let settings: Settings
    private var token: RegistrationToken?
    private(set) var interest = SelectorInterest.none
    private var retryTimer: TimerHandle?
    private var stopped = false

    /// Accepts per readiness event before yielding to the loop's other work.
    static let maximumAcceptsPerEvent = 64

    init(socket: ListeningSocket, loop: EventLoop, settings: Settings) {
        self.socket = socket
        self.loop = loop
        self.settings = settings
    }

    /// Registers with the loop (exclusive wakeups). A failure is reported to `onError`.
    func start() {
        guard !stopped, token == nil else { return }
        do throws(SystemError) {
            token = try loop.register(fd: socket.fd, handler: self, interest: .read, exclusive: true)
            interest = .read
        } catch {
            settings.onError?(error)
        }
    }

    /// Deregisters for good. Idempotent.
    func stop() {
        stopped = true
        if let retryTimer {
            loop.cancelTimer(retryTimer)
            self.retryTimer = nil
        }
        if let token {
            loop.deregister(token, interest: interest)
            self.token = nil
            interest = .none
        }
    }

    func closeForLoopShutdown() {
        stop()
    }

    func handleReadiness(_ events: ReadinessEvents) {
        for _ in 0..<Self.maximumAcceptsPerEvent {
            guard !stopped, interest == .read else { return }
            let newFD: Int32
            do throws(SystemError) {
                guard case .processed(let accepted) = try Posix.accept(socket.fd) else { return }
                newFD = accepted
            } catch {
                handleAcceptError(error)
                continue
            }
            do throws(SystemError) {
                try Posix.setNonBlocking(newFD)
                try Posix.setNoDelay(newFD)
            } catch {
                // The peer may already have reset the connection; drop it.
                Posix.closeDescriptor(newFD)
                continue
            }
            let owner = settings.group?.next() ?? loop
            if owner === loop {
                Self.adopt(newFD, on: loop, settings: settings)
            } else {
                // The task owns the descriptor until it runs; an accepted task always runs,
                // even across the owner's shutdown, so only a refused one must close it here.
                let settings = self.settings
                if !owner.submit({ Self.adopt(newFD, on: owner, settings: settings) }) {
                    Posix.closeDescriptor(newFD)
                }
            }
        }
    }

    /// Wraps an accepted socket in a connection owned by `loop` and hands it to the user.
    private static func adopt(_ fd: Int32, on loop: EventLoop, settings: Settings) {
        let connection = StreamConnection(
            fd: fd, id: ConnectionID(settings.ids.next()), loop: loop,
            localAddress: Posix.localAddress(fd), remoteAddress: Posix.peerAddress(fd))
        settings.accept(connection)
    }

    /// Connection-specific failures (the client gave up before we accepted, or, on Linux, a
    /// network error already pending on the new socket, which accept(2) says to treat like
    /// EAGAIN) are skipped; running
    /// out of descriptors or memory pauses accepting for a while, because with a level-triggered
    /// registration the pending connection would otherwise wake the loop again at once.
    func handleAcceptError(_ error: SystemError) {
        switch error.errno {
        case ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH:
            return
        default:
            settings.onError?(error)
            pause()
        }
    }

    private func pause() {
        guard let token, retryTimer == nil else { return }
        do throws(SystemError) {
            try loop.changeInterest(token, from: interest, to: .none)
            interest = .none
        } catch {
            settings.onError?(error)
        }
        retryTimer = loop.scheduleTimer(after: settings.retryDelay) { [self] in
            retryTimer = nil
            guard !stopped, let token = self.token else { return }
            do throws(SystemError) {
                try loop.changeInterest(token, from: interest, to: .read, exclusive: true)
                interest = .read
            } catch {
                settings.onError?(error)
                pause()
            }
        }
    }
}
