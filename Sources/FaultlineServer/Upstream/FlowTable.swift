import FaultlineCore

/// A table from flow to value that keeps its first entry inline: an HTTP/1 connection serves
/// one flow at a time, so its tables never allocate, and one left empty between requests holds
/// no storage. A second flow at once (HTTP/2 streams) goes to a dictionary beside it, whose
/// storage `releaseUnusedStorage` gives back once it is empty again.
///
/// A dictionary per table cost each idle keep-alive connection about 100 bytes (Swift keeps a
/// dictionary's storage when it is emptied), and making it again for every request cost more
/// instructions than the rest of the table's work (Benchmarks/idle, README "Memory per idle
/// connection").
struct FlowTable<Value> {
    private var first: (flow: FlowID, value: Value)?
    private var others: [FlowID: Value] = [:]

    var isEmpty: Bool {
        guard case .none = first else { return false }
        return others.isEmpty
    }

    var count: Int { (first == nil ? 0 : 1) + others.count }

    subscript(flow: FlowID) -> Value? {
        get {
            if let first, first.flow == flow { return first.value }
            return others.isEmpty ? nil : others[flow]
        }
        set {
            guard let newValue else {
                removeValue(forKey: flow)
                return
            }
            if first == nil || first?.flow == flow, others.isEmpty || others[flow] == nil {
                first = (flow, newValue)
            } else {
                others[flow] = newValue
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey flow: FlowID) -> Value? {
        if let first, first.flow == flow {
            self.first = nil
            return first.value
        }
        return others.isEmpty ? nil : others.removeValue(forKey: flow)
    }

    /// The flows in the table, in no particular order.
    var flows: [FlowID] { (first.map { [$0.flow] } ?? []) + others.keys }

    /// The values in the table, in no particular order; iterating allocates nothing.
    var values: Values { Values(first: first?.value, others: others.values) }

    /// Gives back the dictionary's storage once it is empty; returns whether there was some.
    mutating func releaseUnusedStorage() -> Bool {
        guard others.isEmpty, others.capacity > 0 else { return false }
        others = [:]
        return true
    }

    struct Values: Sequence {
        fileprivate let first: Value?
        fileprivate let others: Dictionary<FlowID, Value>.Values

        var count: Int { (first == nil ? 0 : 1) + others.count }

        func makeIterator() -> Iterator { Iterator(first: first, others: others.makeIterator()) }

        struct Iterator: IteratorProtocol {
            fileprivate var first: Value?
            fileprivate var others: Dictionary<FlowID, Value>.Values.Iterator

            mutating func next() -> Value? {
                if let value = first {
                    first = nil
                    return value
                }
                return others.next()
            }
        }
    }
}
