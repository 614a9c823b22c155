#if os(Linux)
import CLinux
import Glibc

/// `IOSelector` over Linux epoll, level-triggered, with an eventfd for cross-thread wakeups.
///
/// The token of each registration travels in `epoll_event.data.u64` (see `RegistrationToken`).
final class EpollSelector: IOSelector {
    private let epollFD: Int32
    private let eventFD: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private let capacity: Int32 = 256
    private var closed = false

    init() throws(SystemError) {
        epollFD = try Posix.blockingCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do throws(SystemError) {
            eventFD = try Posix.blockingCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        } catch {
            Posix.closeDescriptor(epollFD)
            throw error
        }
        events = .allocate(capacity: Int(capacity))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = RegistrationToken.wakeup(fd: eventFD).rawValue
        do throws(SystemError) {
            try Posix.blockingCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, eventFD, &event) }
        } catch {
            Posix.closeDescriptor(eventFD)
            Posix.closeDescriptor(epollFD)
            events.deallocate()
            throw error
        }
    }

    deinit {
        precondition(closed, "EpollSelector released without close()")
        events.deallocate()
    }

    private static func mask(_ interest: SelectorInterest) -> UInt32 {
        var mask: UInt32 = 0
        // No EPOLLRDHUP: a peer's FIN already makes the socket readable (read returns 0), and
        // EPOLLEXCLUSIVE registrations reject it with EINVAL.
        if interest.contains(.read) { mask |= EPOLLIN.rawValue }
        if interest.contains(.write) { mask |= EPOLLOUT.rawValue }
        return mask
    }

    func add(fd: Int32, interest: SelectorInterest, token: RegistrationToken, exclusive: Bool) throws(SystemError) {
        var event = epoll_event()
        event.events = Self.mask(interest) | (exclusive ? EPOLLEXCLUSIVE.rawValue : 0)
        event.data.u64 = token.rawValue
        try Posix.blockingCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
    }

    func modify(fd: Int32, from old: SelectorInterest, to new: SelectorInterest, token: RegistrationToken)
        throws(SystemError)
    {
        var event = epoll_event()
        event.events = Self.mask(new)
        event.data.u64 = token.rawValue
        try Posix.blockingCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
    }

    func remove(fd: Int32, interest: SelectorInterest) throws(SystemError) {
        var event = epoll_event()  // ignored, but kernels before 2.6.9 required non-null
        try Posix.blockingCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event) }
    }

    func wait(timeout: Duration?, _ body: (RegistrationToken, ReadinessEvents) -> Void) throws(SystemError) {
        let milliseconds = timeout.map { $0.millisecondsRoundedUp } ?? -1
        let count: Int32
        switch try Posix.call("epoll_wait", { epoll_wait(epollFD, events, capacity, milliseconds) }) {
        case .processed(let ready): count = ready
        case .wouldBlock: count = 0
        }
        let wakeupToken = RegistrationToken.wakeup(fd: eventFD).rawValue
        for index in 0..<Int(count) {
            let event = events[index]
            if event.data.u64 == wakeupToken {
                drainWakeups()
                continue
            }
            var ready: ReadinessEvents = []
            if event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLPRI.rawValue) != 0 {
                ready.insert(.readable)
            }
            if event.events & EPOLLOUT.rawValue != 0 { ready.insert(.writable) }
            if event.events & EPOLLHUP.rawValue != 0 { ready.insert(.hangup) }
            if event.events & EPOLLERR.rawValue != 0 { ready.insert(.error) }
            body(RegistrationToken(rawValue: event.data.u64), ready)
        }
    }

    private func drainWakeups() {
        var value: UInt64 = 0
        // The eventfd is non-blocking; one read resets the counter to zero.
        _ = try? Posix.call("read") { Glibc.read(eventFD, &value, MemoryLayout<UInt64>.size) }
    }

    func wakeup() {
        var one: UInt64 = 1
        // EAGAIN means the counter is saturated: a wakeup is pending anyway.
        _ = try? Posix.call("write") { Glibc.write(eventFD, &one, MemoryLayout<UInt64>.size) }
    }

    func close() {
        precondition(!closed, "EpollSelector closed twice")
        closed = true
        Posix.closeDescriptor(eventFD)
        Posix.closeDescriptor(epollFD)
    }
}
#endif
