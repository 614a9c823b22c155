/// The open streams of one HTTP/2 client connection, kept in stream order, and which of them the
/// current input reached.
///
/// A sorted array rather than a dictionary: the session looks a stream up several times for each
/// frame, and in stream order (so that the trace and the frames come out the same way on every
/// run). With a dictionary each look-up hashed the ID, and going through the streams sorted the
/// keys first: under `h2load -m 10` that was about 120 hashes per request. Here a look-up is a
/// binary search over at most `SETTINGS_MAX_CONCURRENT_STREAMS` entries, and since a client's
/// stream IDs only grow (RFC 9113 §5.1.1) a new stream goes at the end.
///
/// After every input the session settles the streams that input changed (credit, body timer,
/// a fault's GOAWAY: `HTTP2ProxySession.afterInput`). Everything that changes a stream reaches it
/// through this table's subscript, so the subscript notes the IDs it was asked for, and
/// `takeTouched(into:)` hands them out: the session visits those instead of every open stream, which
/// under 50 concurrent streams was about 200 visits a request.
struct HTTP2StreamTable {
    private var entries: [HTTP2Stream] = []
    /// IDs the subscript was asked for since the last `takeTouched(into:)`, in the order asked (an ID
    /// asked for twice in a row is noted once).
    private var touched: [Int32] = []

    var isEmpty: Bool { entries.isEmpty }

    /// The open streams in stream order. A copy that later changes to the table leave alone, so
    /// a caller may go through it while the streams it visits end. Going through it notes
    /// nothing: it is for questions; a caller that changes a stream reaches it by its ID.
    var inOrder: [HTTP2Stream] { entries }

    /// The IDs of the open streams, in ascending order.
    var ids: [Int32] { entries.map(\.streamID) }

    /// The stream with ID `id`, noted as touched; setting nil removes it.
    subscript(id: Int32) -> HTTP2Stream? {
        mutating get {
            guard let stream = peek(id) else { return nil }
            touch(id)
            return stream
        }
        set {
            let index = firstIndex(notBelow: id)
            let present = holds(id, at: index)
            switch (newValue, present) {
            case (let stream?, true):
                entries[index] = stream
                touch(id)
            case (let stream?, false):
                precondition(stream.streamID == id, "a stream is kept under its own ID")
                entries.insert(stream, at: index)
                touch(id)
            case (nil, true): entries.remove(at: index)
            case (nil, false): break
            }
        }
    }

    /// The stream with ID `id`, for a question that changes nothing: not noted as touched.
    func peek(_ id: Int32) -> HTTP2Stream? {
        let index = firstIndex(notBelow: id)
        return holds(id, at: index) ? entries[index] : nil
    }

    /// Removes the stream with ID `id` and returns it; nil when there was none.
    mutating func remove(_ id: Int32) -> HTTP2Stream? {
        let index = firstIndex(notBelow: id)
        return holds(id, at: index) ? entries.remove(at: index) : nil
    }

    /// Puts the streams reached through the subscript since the last call that are still open
    /// into `visit` (emptied first, its capacity kept), in stream order, each once; from now on
    /// the table notes anew.
    mutating func takeTouched(into visit: inout [HTTP2Stream]) {
        visit.removeAll(keepingCapacity: true)
        guard !touched.isEmpty else { return }
        touched.sort()
        var previous: Int32?
        for id in touched where id != previous {
            previous = id
            if let stream = peek(id) { visit.append(stream) }
        }
        touched.removeAll(keepingCapacity: true)
    }

    private mutating func touch(_ id: Int32) {
        if touched.last != id { touched.append(id) }
    }

    /// Whether the stream at `index`, as `firstIndex(notBelow: id)` found it, is the one with `id`.
    private func holds(_ id: Int32, at index: Int) -> Bool {
        entries.holds(id, at: index) { $0.streamID }
    }

    /// The position of the first stream whose ID is `id` or more (`entries.count` when none is).
    private func firstIndex(notBelow id: Int32) -> Int {
        entries.firstIndex(notBelow: id) { $0.streamID }
    }
}
