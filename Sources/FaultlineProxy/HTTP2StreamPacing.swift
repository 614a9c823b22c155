import FaultlineCore
import FaultlineHTTP1

/// A response `throttle` on one HTTP/2 stream: what the flow sends the client waits here and is
/// handed to the connection one slice per tick, so that stream's DATA leaves at the rule's rate
/// while the other streams of the connection go at full speed.
///
/// On HTTP/1 a throttle paces the client connection itself (the driver's `Pacer`), which is the
/// flow's alone. An HTTP/2 connection multiplexes streams (RFC 9113 §5), and flow control, the
/// only brake the protocol has, is per stream (§5.2), so pacing is too: it happens before the
/// connection frames the bytes, and the session's timer (`SessionTimer.streamPacing`) ticks it.
///
/// What waits leaves in order: body bytes, then the end (END_STREAM or trailers) or a reset the
/// flow asked for after them, so a throttle never lets the end overtake the body. The response
/// head is not paced: HEADERS go at once, as the first slice of an HTTP/1 pacer would.
struct HTTP2StreamPacing {
    /// How often a slice leaves (as the driver's `Pacer`).
    static let tick: Duration = .milliseconds(20)

    /// Something the flow handed over while the stream is paced.
    enum Item: Equatable {
        case data(ArraySlice<UInt8>)
        /// END_STREAM, or the trailers that end the stream (§8.1).
        case end(trailers: HTTPHeaders?)
        /// RST_STREAM after the bytes before it (a transport fault, §5.4.2).
        case reset(HTTP2ErrorCode)
    }

    private(set) var bytesPerTick: Int
    private var items: [Item] = []
    private var head = 0
    /// Body bytes waiting.
    private(set) var queuedBytes = 0
    /// The throttle ended (a `throttle` with no rate): pacing stops once nothing waits.
    var finishing = false
    /// A tick is armed (`SessionTimer.streamPacing`).
    var tickArmed = false

    init(bytesPerSecond: Int) {
        bytesPerTick = Self.perTick(bytesPerSecond)
    }

    private static func perTick(_ bytesPerSecond: Int) -> Int { max(1, bytesPerSecond / 50) }

    /// A later `throttle` on the same stream: the new rate applies to what waits, and pacing goes on.
    mutating func setRate(_ bytesPerSecond: Int) {
        bytesPerTick = Self.perTick(bytesPerSecond)
        finishing = false
    }

    /// Nothing waits.
    var isEmpty: Bool { head == items.count }

    mutating func enqueue(_ item: Item) {
        if case .data(let bytes) = item {
            guard !bytes.isEmpty else { return }
            queuedBytes += bytes.count
        }
        items.append(item)
    }

    /// The next slice: at most `bytesPerTick` body bytes, and then the end or the reset once
    /// every byte queued before it has gone.
    mutating func nextSlice() -> [Item] {
        var slice: [Item] = []
        var budget = bytesPerTick
        while head < items.count {
            switch items[head] {
            case .data(let bytes):
                guard budget > 0 else { return compacted(slice) }
                if bytes.count <= budget {
                    slice.append(.data(bytes))
                    budget -= bytes.count
                    queuedBytes -= bytes.count
                    head += 1
                } else {
                    slice.append(.data(bytes.prefix(budget)))
                    items[head] = .data(bytes.dropFirst(budget))
                    queuedBytes -= budget
                    budget = 0
                }
            case .end, .reset:
                slice.append(items[head])
                head += 1
            }
        }
        return compacted(slice)
    }

    /// Drops the items already handed out once they are many, so the queue does not keep them.
    private mutating func compacted(_ slice: [Item]) -> [Item] {
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 {
            items.removeFirst(head)
            head = 0
        }
        return slice
    }
}
