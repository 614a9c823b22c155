#if canImport(Darwin)
import Darwin

/// `IOSelector` over BSD kqueue, with an `EVFILT_USER` event for cross-thread wakeups.
///
/// kqueue tracks reading and writing as separate filters, so interest changes become EV_ADD and
/// EV_DELETE changes per filter. The token travels in `udata`. There is no EPOLLEXCLUSIVE: every
/// kqueue watching a listening socket wakes, and the losers see EAGAIN from accept.
/// kqueue removes a descriptor's filters by itself when the descriptor is closed.
///
/// `kevent(...)` calls stay unqualified: `Darwin.kevent(` resolves to the struct's initializer,
/// not the function. (Type-checked on Linux against a stand-in `Darwin` module map declaring
/// the same C signatures; it has not been compiled on a Mac.)
final class KqueueSelector: IOSelector {
    private let queueFD: Int32
    private let events: UnsafeMutablePointer<kevent>
    private let capacity: Int32 = 256
    /// EVFILT_USER identifiers are their own namespace; they never clash with descriptors.
    private static let wakeupIdent: UInt = 1
    private var closed = false

    init() throws(SystemError) {
        queueFD = try Posix.blockingCall("kqueue") { kqueue() }
        events = .allocate(capacity: Int(capacity))
        var change = kevent(
            ident: Self.wakeupIdent, filter: Int16(EVFILT_USER), flags: UInt16(EV_ADD | EV_CLEAR),
            fflags: 0, data: 0, udata: nil)
        do throws(SystemError) {
            try Posix.blockingCall("kevent") { kevent(queueFD, &change, 1, nil, 0, nil) }
        } catch {
            Posix.closeDescriptor(queueFD)
            events.deallocate()
            throw error
        }
    }

    deinit {
        precondition(closed, "KqueueSelector released without close()")
        events.deallocate()
    }

    private static func change(fd: Int32, filter: Int32, flags: Int32, token: RegistrationToken) -> kevent {
        kevent(
            ident: UInt(bitPattern: Int(fd)), filter: Int16(filter), flags: UInt16(flags), fflags: 0, data: 0,
            udata: UnsafeMutableRawPointer(bitPattern: UInt(token.rawValue)))
    }

    /// Adds (or updates the token of) the filters in `add`, then deletes those in `delete`.
    /// kqueue stops at the first failing change when there is no event list, so each delete goes
    /// alone and its ENOENT (the filter was never added: the state we want) is ignored.
    private func apply(fd: Int32, add: SelectorInterest, delete: SelectorInterest, token: RegistrationToken)
        throws(SystemError)
    {
        // At most two changes; a stack buffer keeps interest changes allocation-free.
        try withUnsafeTemporaryAllocation(of: kevent.self, capacity: 2) { (buffer) throws(SystemError) -> Void in
            var count = 0
            if add.contains(.read) {
                buffer.initializeElement(
                    at: count, to: Self.change(fd: fd, filter: EVFILT_READ, flags: EV_ADD, token: token))
                count += 1
            }
            if add.contains(.write) {
                buffer.initializeElement(
                    at: count, to: Self.change(fd: fd, filter: EVFILT_WRITE, flags: EV_ADD, token: token))
                count += 1
            }
            if count > 0 {
                let changeCount = Int32(count)
                try Posix.blockingCall("kevent") { kevent(queueFD, buffer.baseAddress, changeCount, nil, 0, nil) }
            }
        }
        if delete.contains(.read) { try deleteFilter(fd: fd, filter: EVFILT_READ) }
        if delete.contains(.write) { try deleteFilter(fd: fd, filter: EVFILT_WRITE) }
    }

    private func deleteFilter(fd: Int32, filter: Int32) throws(SystemError) {
        var change = Self.change(
            fd: fd, filter: filter, flags: EV_DELETE, token: RegistrationToken(fd: fd, generation: 0))
        do throws(SystemError) {
            try Posix.blockingCall("kevent") { kevent(queueFD, &change, 1, nil, 0, nil) }
        } catch {
            if error.errno != ENOENT { throw error }
        }
    }

    func add(fd: Int32, interest: SelectorInterest, token: RegistrationToken, exclusive: Bool) throws(SystemError) {
        try apply(fd: fd, add: interest, delete: [], token: token)
    }

    func modify(fd: Int32, from old: SelectorInterest, to new: SelectorInterest, token: RegistrationToken)
        throws(SystemError)
    {
        try apply(fd: fd, add: new, delete: old.subtracting(new), token: token)
    }

    func remove(fd: Int32, interest: SelectorInterest) throws(SystemError) {
        try apply(fd: fd, add: [], delete: interest, token: RegistrationToken(fd: fd, generation: 0))
    }

    func wait(timeout: Duration?, _ body: (RegistrationToken, ReadinessEvents) -> Void) throws(SystemError) {
        var spec = timespec()
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            spec.tv_sec = max(0, Int(seconds))
            spec.tv_nsec = seconds < 0 ? 0 : max(0, Int(attoseconds / 1_000_000_000))
        }
        let count: Int32
        let result = try withUnsafePointer(to: &spec) { (specPointer) throws(SystemError) -> IOResult<Int32> in
            try Posix.call("kevent") {
                kevent(queueFD, nil, 0, events, capacity, timeout == nil ? nil : specPointer)
            }
        }
        switch result {
        case .processed(let ready): count = ready
        case .wouldBlock: count = 0
        }
        for index in 0..<Int(count) {
            let event = events[index]
            if Int32(event.filter) == EVFILT_USER { continue }  // a wakeup; EV_CLEAR re-arms it
            var ready: ReadinessEvents = []
            switch Int32(event.filter) {
            case EVFILT_READ: ready.insert(.readable)
            case EVFILT_WRITE: ready.insert(.writable)
            default: continue
            }
            if Int32(event.flags) & EV_ERROR != 0 { ready.insert(.error) }
            let token = RegistrationToken(rawValue: UInt64(UInt(bitPattern: event.udata)))
            body(token, ready)
        }
    }

    func wakeup() {
        var change = kevent(
            ident: Self.wakeupIdent, filter: Int16(EVFILT_USER), flags: 0, fflags: UInt32(NOTE_TRIGGER), data: 0,
            udata: nil)
        _ = try? Posix.call("kevent") { kevent(queueFD, &change, 1, nil, 0, nil) }
    }

    func close() {
        precondition(!closed, "KqueueSelector closed twice")
        closed = true
        Posix.closeDescriptor(queueFD)
    }
}
#endif
