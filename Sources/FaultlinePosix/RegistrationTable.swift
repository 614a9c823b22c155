/// Something registered with an event loop's selector: a connection, a listener, a pending connect.
///
/// All calls come from the owning loop's thread.
protocol SelectableHandler: AnyObject {
    /// The kernel reported `events` for this handler's current registration.
    func handleReadiness(_ events: ReadinessEvents)
    /// The loop is shutting down: release the descriptor and deregister. Called once, on the loop thread.
    func closeForLoopShutdown()
}

/// The event loop's map from descriptor to handler, with a generation per registration.
///
/// Indexed by descriptor number (descriptors are small, dense integers), so a lookup per event is
/// an array access. Each registration gets a fresh non-zero generation; `handler(for:)` answers
/// only when the token's generation is the current one, so an event read from the kernel before a
/// descriptor was closed and its number reused never reaches the new owner.
///
/// The table holds a strong reference to each handler: a registered connection stays alive until
/// it deregisters, like a channel in swift-nio. Loop-thread confined (it lives inside `EventLoop`).
struct RegistrationTable {
    private struct Slot {
        var generation: UInt32
        var handler: any SelectableHandler
    }

    private var slots: [Slot?] = []
    private var nextGeneration: UInt32 = 1
    private(set) var count = 0

    /// Records `handler` for `fd` and returns its token. The descriptor must not be registered.
    mutating func insert(fd: Int32, handler: any SelectableHandler) -> RegistrationToken {
        precondition(fd >= 0, "registering a negative descriptor")
        let index = Int(fd)
        if index >= slots.count {
            slots.append(contentsOf: repeatElement(nil, count: max(index + 1, slots.count * 2) - slots.count))
        }
        precondition(slots[index] == nil, "descriptor \(fd) registered twice")
        let generation = nextGeneration
        // Generation 0 is reserved for the selector's wakeup descriptor.
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        slots[index] = Slot(generation: generation, handler: handler)
        count += 1
        return RegistrationToken(fd: fd, generation: generation)
    }

    /// The handler registered under `token`, or nil when that registration is gone (stale event).
    func handler(for token: RegistrationToken) -> (any SelectableHandler)? {
        let index = Int(token.fd)
        guard index >= 0, index < slots.count, let slot = slots[index], slot.generation == token.generation else {
            return nil
        }
        return slot.handler
    }

    /// Forgets the registration `token`; returns false when it was not current (already removed).
    @discardableResult
    mutating func remove(_ token: RegistrationToken) -> Bool {
        guard handler(for: token) != nil else { return false }
        slots[Int(token.fd)] = nil
        count -= 1
        return true
    }

    /// Every registered handler, for shutdown.
    var allHandlers: [any SelectableHandler] {
        slots.compactMap { $0?.handler }
    }
}
