import FaultlineCore
import FaultlinePosix
import FaultlineProxy
import FaultlineTrace

/// The send timeout (`ServerConfiguration.sendTimeout`, `--send-timeout`, as nginx's
/// `send_timeout`): output the client's socket did not take waits in the connection's outbound
/// buffer, and a client that reads none of it for that long (its receive window closed, the
/// kernel's send buffer full) has its connection closed instead of pinning it, its descriptor
/// and its flows' upstreams for ever. A close after flush (`Connection: close`, a GOAWAY, a
/// refusal) waits for its bytes under the same bound.
///
/// The time counts from the last sign that the client reads: a write that moved waiting bytes
/// into the kernel (`StreamConnection.outboundStalledSince`), or the kernel's send queue changing
/// (`StreamConnection.kernelQueuedBytes`). The second matters: the kernel wakes a writer only
/// once much of its send buffer is free, and on loopback that buffer grows to megabytes, which a
/// slow reader can take many seconds to empty while it reads all along. The clock looks every
/// quarter of the timeout while output waits (a change is dated when it is seen), so a slow
/// reader is never cut, and one that reads nothing is cut about 1.25 timeouts after it stopped
/// (the kernel's queue still moves once as its last segments are acknowledged).
///
/// When it runs out: `protocol.error` (side `client`, code `send-timeout`, the bytes still
/// waiting), every flow on the connection ends (`flow.aborted`, reason `send-timeout`,
/// `ClientSession.sendTimedOut`), the connection closes at once, dropping what waits, and
/// `connection.closed` says `send-timeout`.
///
/// Bytes a throttle holds back (the client `Pacer`) are the proxy's own slowness and are not
/// counted; only what the socket could not send is.
extension ClientConnectionHandler {
    /// The client socket began to queue output: the clock starts, unless it runs already. It
    /// looks when it fires rather than being moved at every write, so a busy download costs no
    /// timer per write.
    func streamConnectionDidQueueOutbound(_ connection: StreamConnection) {
        guard sendClock == nil else { return }
        sendClock = SendClock(
            timer: scheduleSendCheck(after: sendCheckInterval),
            kernelQueued: client.socket.kernelQueuedBytes, kernelMovedAt: context.loop.now)
    }

    /// How often the clock looks while output waits: a quarter of the timeout.
    private var sendCheckInterval: Duration { context.configuration.sendTimeout / 4 }

    private func scheduleSendCheck(after delay: Duration) -> TimerHandle {
        context.loop.scheduleTimer(after: delay) { [weak self] in self?.sendClockRanOut() }
    }

    /// Nothing waits any more (the clock stops until output queues again), the client read
    /// within the timeout (the clock runs for the rest of the time since it last did), or it has
    /// read nothing for the whole timeout.
    private func sendClockRanOut() {
        guard let clock = sendClock else { return }
        guard client.socket.isOpen, let written = client.socket.outboundStalledSince else {
            sendClock = nil
            return
        }
        let now = context.loop.now
        let kernelQueued = client.socket.kernelQueuedBytes
        if kernelQueued != clock.kernelQueued {
            clock.kernelQueued = kernelQueued
            clock.kernelMovedAt = now
        }
        let timeout = context.configuration.sendTimeout
        let waited = max(written, clock.kernelMovedAt).duration(to: now)
        guard waited >= timeout else {
            clock.timer = scheduleSendCheck(after: min(timeout - waited, sendCheckInterval))
            return
        }
        sendClock = nil
        let queued = client.socket.outboundBufferedBytes
        let seconds = JSONNumber(timeout.inSeconds)
        context.trace.record(
            .protocolError, connection: client.id,
            [
                .string("side", "client"), .string("code", "send-timeout"), .int("queued_bytes", Int64(queued)),
                .string(
                    "message",
                    "The client read none of the \(queued) bytes waiting for it within the send timeout (\(seconds) s): the connection is closed."
                ),
            ])
        closeReason = "send-timeout"
        perform(session.sendTimedOut())
        client.socket.close()
    }
}

/// The send timeout's clock (ClientConnectionHandler+SendTimeout.swift): its timer, and the
/// kernel's send queue as last seen, with when it was last seen to change. A class, made only
/// while output waits, so an idle connection's handler carries one pointer for it.
final class SendClock {
    var timer: TimerHandle
    var kernelQueued: Int?
    var kernelMovedAt: MonotonicInstant

    init(timer: TimerHandle, kernelQueued: Int?, kernelMovedAt: MonotonicInstant) {
        self.timer = timer
        self.kernelQueued = kernelQueued
        self.kernelMovedAt = kernelMovedAt
    }
}
