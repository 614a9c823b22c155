/// Stores a large value behind one reference, with value semantics (copy on write), so the struct
/// or enum payload that holds it stays small.
///
/// For values that are written once and read often, inside state that moves a lot: a state enum
/// is as large as its largest payload, and every transition, every copy of the machine and every
/// `switch` that binds a payload moves that many bytes. swift-nio boxes `HTTPRequestHead` for the
/// same reason. A copy shares the box; a write through a shared box copies the value first.
@propertyWrapper
public struct OutOfLine<Value> {
    @usableFromInline
    final class Storage {
        @usableFromInline var value: Value
        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var storage: Storage

    @inlinable
    public init(wrappedValue: Value) {
        storage = Storage(wrappedValue)
    }

    /// The box itself, to hand the value on without copying it (`$plan`).
    @inlinable
    public var projectedValue: OutOfLine<Value> { self }

    @inlinable
    public var wrappedValue: Value {
        get { storage.value }
        set {
            if isKnownUniquelyReferenced(&storage) { storage.value = newValue } else { storage = Storage(newValue) }
        }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
            yield &storage.value
        }
    }
}

// A box is written only while this value holds its one reference (`isKnownUniquelyReferenced`
// above); a box two values share is only read. That is what makes it safe to send, as for Array.
extension OutOfLine: @unchecked Sendable where Value: Sendable {}
extension OutOfLine: Equatable where Value: Equatable {
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}
