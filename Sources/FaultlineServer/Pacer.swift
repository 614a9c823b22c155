import FaultlinePosix

/// Paces writes to one connection at a byte rate (a `throttle` action): bytes queue here and a
/// timer releases a slice every tick. Loop-confined.
final class Pacer {
    static let tick: Duration = .milliseconds(20)

    private let loop: EventLoop
    private let bytesPerTick: Int
    private let write: ([UInt8]) -> Void
    private var queue: [UInt8] = []
    private var readIndex = 0
    private var timer: TimerHandle?

    init(loop: EventLoop, bytesPerSecond: Int, write: @escaping ([UInt8]) -> Void) {
        self.loop = loop
        self.bytesPerTick = max(1, bytesPerSecond / 50)
        self.write = write
    }

    /// Bytes waiting to be written.
    var queuedBytes: Int { queue.count - readIndex }

    func enqueue(_ bytes: [UInt8]) {
        queue.append(contentsOf: bytes)
        if timer == nil { release() }
    }

    /// Writes everything still queued (the throttle ends) and stops the timer.
    func flush() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if queuedBytes > 0 { write(Array(queue[readIndex...])) }
        queue = []
        readIndex = 0
    }

    /// Drops what is queued (the connection is gone).
    func cancel() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        queue = []
        readIndex = 0
    }

    private func release() {
        timer = nil
        guard queuedBytes > 0 else { return }
        let end = min(queue.count, readIndex + bytesPerTick)
        write(Array(queue[readIndex..<end]))
        readIndex = end
        if readIndex == queue.count {
            queue = []
            readIndex = 0
            return
        }
        timer = loop.scheduleTimer(after: Self.tick) { [weak self] in self?.release() }
    }
}
