import FaultlineCore

/// Identifies a timer scheduled with `EventLoop.scheduleTimer`; pass it to `cancelTimer`.
public struct TimerHandle: Hashable, Sendable {
    let loopSerial: UInt32
    /// Where the timer's callback is kept while it is live (`TimerQueue.slots`).
    let slot: UInt32
    let id: UInt64
}

/// The timers of one event loop: a binary min-heap ordered by deadline, then by scheduling order.
///
/// Theory of operation:
/// - `schedule` keeps the callback in a slot (reusing a free one) and pushes (deadline, id, slot)
///   on the heap. A slot holds the id of the timer it serves, so a heap entry whose id is no
///   longer its slot's belongs to a timer that was cancelled (and the slot perhaps reused).
/// - `cancel` only empties the slot; its heap entry becomes a tombstone, skipped when it reaches
///   the top. Tombstones are counted, and the heap is rebuilt without them once they are the
///   majority, so a proxy that arms and cancels timers per request keeps a small heap.
/// - Slots rather than a dictionary by id: a keep-alive request arms and cancels two timers, and
///   the dictionary's hashing was most of what a timer cost (`Benchmarks/micro --server`).
/// - `popExpired` hands out callbacks whose deadline has passed, but never one scheduled after
///   the current firing round began, so a timer that re-arms itself with zero delay cannot starve
///   the loop.
///
/// Loop-thread confined (it lives inside `EventLoop`).
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
        var slot: UInt32

        func fires(before other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    /// A live timer's callback and id; an empty slot has id 0 (ids start at 1).
    private struct Slot {
        var id: UInt64 = 0
        var callback: (() -> Void)?
    }

    private var heap: [Entry] = []
    private var slots: [Slot] = []
    private var freeSlots: [UInt32] = []
    private var live = 0
    private var nextID: UInt64 = 1
    private var tombstones = 0
    private let loopSerial: UInt32

    init(loopSerial: UInt32) {
        self.loopSerial = loopSerial
    }

    /// Live (not cancelled, not fired) timers.
    var count: Int { live }

    /// Heap entries including cancelled ones (for tests of the compaction).
    var heapCount: Int { heap.count }

    @discardableResult
    mutating func schedule(at deadline: MonotonicInstant, _ callback: @escaping () -> Void) -> TimerHandle {
        let id = nextID
        nextID += 1
        let slot: UInt32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = Slot(id: id, callback: callback)
        } else {
            slot = UInt32(slots.count)
            slots.append(Slot(id: id, callback: callback))
        }
        live += 1
        push(Entry(deadline: deadline.nanoseconds, id: id, slot: slot))
        return TimerHandle(loopSerial: loopSerial, slot: slot, id: id)
    }

    /// Cancels `handle`; returns false when it already fired or was cancelled.
    @discardableResult
    mutating func cancel(_ handle: TimerHandle) -> Bool {
        precondition(handle.loopSerial == loopSerial, "cancelling a timer of another event loop")
        guard Int(handle.slot) < slots.count, slots[Int(handle.slot)].id == handle.id else { return false }
        release(handle.slot)
        tombstones += 1
        if tombstones > 64 && tombstones * 2 > heap.count { compact() }
        return true
    }

    /// The earliest live deadline, dropping tombstones that sit on top.
    mutating func nextDeadline() -> MonotonicInstant? {
        dropCancelledTop()
        return heap.first.map { MonotonicInstant(nanoseconds: $0.deadline) }
    }

    /// The id every timer scheduled from now on will be at or above; pass it to `popExpired`.
    var roundMarker: UInt64 { nextID }

    /// The next callback due at `now` that was scheduled before `marker`, or nil.
    mutating func popExpired(now: MonotonicInstant, before marker: UInt64) -> (() -> Void)? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now.nanoseconds, top.id < marker else { return nil }
        popTop()
        let callback = slots[Int(top.slot)].callback
        release(top.slot)
        return callback
    }

    mutating func removeAll() {
        heap.removeAll()
        slots.removeAll()
        freeSlots.removeAll()
        live = 0
        tombstones = 0
    }

    /// Empties a live timer's slot (dropping its callback) and makes it free for the next one.
    private mutating func release(_ slot: UInt32) {
        slots[Int(slot)] = Slot()
        freeSlots.append(slot)
        live -= 1
    }

    private func isLive(_ entry: Entry) -> Bool {
        slots[Int(entry.slot)].id == entry.id
    }

    // MARK: - Heap

    private mutating func dropCancelledTop() {
        while let top = heap.first, !isLive(top) {
            popTop()
            tombstones -= 1
        }
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        siftUp(heap.count - 1)
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.fires(before: heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = heap[parent]
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count && heap[child + 1].fires(before: heap[child]) { child += 1 }
            guard heap[child].fires(before: entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }

    private mutating func compact() {
        let slots = self.slots  // read while `heap` changes
        heap.removeAll { slots[Int($0.slot)].id != $0.id }
        tombstones = 0
        // Floyd's heap construction: sift down every internal node, last first.
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }
}
