import FaultlinePosix

/// Paces writes to one connection at a byte rate (a `throttle` action): bytes queue here and a
/// timer releases a slice every tick. Loop-confined.
///
/// Bytes leave in the order they were queued, so ending a throttle does not let later bytes
/// overtake paced ones: the pacer keeps its rate until its queue is empty and then tells its
/// owner it is done (`finishWhenDrained`).
final class Pacer {
    static let tick: Duration = .milliseconds(20)

    private let loop: EventLoop
    private var bytesPerTick: Int
    private let write: ([UInt8]) -> Void
    private var queue: [UInt8] = []
    private var readIndex = 0
    private var timer: TimerHandle?
    private var onDrained: (() -> Void)?
    /// Steps waiting for the queue to empty that a new rate does not call off (a close).
    private var afterDrain: [() -> Void] = []

    init(loop: EventLoop, bytesPerSecond: Int, write: @escaping ([UInt8]) -> Void) {
        self.loop = loop
        self.bytesPerTick = Self.perTick(bytesPerSecond)
        self.write = write
    }

    private static func perTick(_ bytesPerSecond: Int) -> Int { max(1, bytesPerSecond / 50) }

    /// Bytes waiting to be written.
    var queuedBytes: Int { queue.count - readIndex }

    /// A new rate for what is queued and what comes next (a later `throttle` on the same side);
    /// a pending `finishWhenDrained` is called off.
    func setRate(_ bytesPerSecond: Int) {
        bytesPerTick = Self.perTick(bytesPerSecond)
        onDrained = nil
    }

    func enqueue(_ bytes: [UInt8]) {
        queue.append(contentsOf: bytes)
        if timer == nil { release() }
    }

    /// Calls `done` once everything queued has been written (at once if nothing is).
    func finishWhenDrained(_ done: @escaping () -> Void) {
        if queuedBytes == 0 {
            done()
        } else {
            onDrained = done
        }
    }

    /// Calls `step` once everything queued now and later has been written (at once if nothing
    /// is): for a close, which must not cut paced bytes. A new rate does not call it off.
    func whenDrained(_ step: @escaping () -> Void) {
        if queuedBytes == 0 {
            step()
        } else {
            afterDrain.append(step)
        }
    }

    /// Drops what is queued and every waiting step (the connection is gone).
    func cancel() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        queue = []
        readIndex = 0
        onDrained = nil
        afterDrain = []
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
            let steps = afterDrain
            afterDrain = []
            if let onDrained {
                self.onDrained = nil
                onDrained()
            }
            for step in steps { step() }
            return
        }
        timer = loop.scheduleTimer(after: Self.tick) { [weak self] in self?.release() }
    }
}
