/// Searches in an array kept sorted by an ID of its elements: the HTTP/2 session's stream table
/// (`HTTP2StreamTable`) and its stream of each flow (`FlowStreamIndex`). Both hold IDs handed out
/// in ascending order, so the last element is looked at first and a new ID goes at the end
/// without a search.
extension Array {
    /// The position of the first element whose key is `target` or more (`count` when none is).
    @inline(__always)
    func firstIndex<Key: Comparable>(notBelow target: Key, key: (Element) -> Key) -> Int {
        if let last, key(last) <= target {
            return key(last) == target ? count - 1 : count
        }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if key(self[middle]) < target { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether the element at `index`, as `firstIndex(notBelow: target, key:)` found it, has the
    /// key `target`.
    @inline(__always)
    func holds<Key: Comparable>(_ target: Key, at index: Int, key: (Element) -> Key) -> Bool {
        index < count && key(self[index]) == target
    }
}
