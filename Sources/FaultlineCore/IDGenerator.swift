import Synchronization

/// Hands out increasing identifiers from any thread.
///
/// One generator per proxy run keeps connection and flow numbers unique across event loops.
public final class IDGenerator: Sendable {
    private let counter = Atomic<UInt64>(0)

    public init() {}

    /// Returns the next identifier, starting at 1.
    public func next() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }
}
