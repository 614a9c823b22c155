/// Registration of descriptors with the loop's selector: used by connections, listeners and
/// pending connects, always on the loop thread.
extension EventLoop {
    /// Adds `handler` for `fd` and, when `interest` is not empty, starts watching the descriptor.
    func register(
        fd: Int32, handler: any SelectableHandler, interest: SelectorInterest, exclusive: Bool = false
    ) throws(SystemError) -> RegistrationToken {
        assertInEventLoop()
        let token = registrations.insert(fd: fd, handler: handler)
        if !interest.isEmpty {
            do throws(SystemError) {
                try selector.add(fd: fd, interest: interest, token: token, exclusive: exclusive)
            } catch {
                registrations.remove(token)
                throw error
            }
        }
        return token
    }

    /// Moves a registration from interest `old` to `new`. An empty set is not in the kernel at all
    /// (see `IOSelector`), so this adds, modifies or removes as needed.
    func changeInterest(
        _ token: RegistrationToken, from old: SelectorInterest, to new: SelectorInterest, exclusive: Bool = false
    ) throws(SystemError) {
        assertInEventLoop()
        guard old != new else { return }
        if old.isEmpty {
            try selector.add(fd: token.fd, interest: new, token: token, exclusive: exclusive)
        } else if new.isEmpty {
            try selector.remove(fd: token.fd, interest: old)
        } else {
            try selector.modify(fd: token.fd, from: old, to: new, token: token)
        }
    }

    /// Stops watching and forgets the registration. Call before closing the descriptor.
    func deregister(_ token: RegistrationToken, interest: SelectorInterest) {
        assertInEventLoop()
        guard registrations.remove(token) else { return }
        if !interest.isEmpty {
            // Failure leaves nothing to do: the descriptor is about to be closed, which removes
            // it from the kernel's set anyway.
            try? selector.remove(fd: token.fd, interest: interest)
        }
    }
}
