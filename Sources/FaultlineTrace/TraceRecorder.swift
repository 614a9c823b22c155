import COpenSSL
public import FaultlineCore
import Synchronization

/// Records trace events as JSON Lines, from any number of threads, redacting secrets as it writes.
///
/// Make one per proxy run; call `record` from any event-loop thread, and `close()` when the run
/// ends (the command line also calls it on SIGINT/SIGTERM, from a normal thread, not inside a
/// signal handler). Everything recorded before `close()` returns is in the output, as whole lines.
///
/// Theory of operation: `record` encodes and redacts the event on the caller's thread (into a
/// `TraceScratch` the caller keeps, or a fresh one), then under one lock assigns the next `seq`,
/// reads both clocks and appends the line to a memory buffer, so file order is seq order and
/// `mono_ns` never decreases along it. The buffer goes to the file descriptor (write(2), whole
/// lines only) from a background flusher thread: every `flushInterval`, so `tail -f` sees events
/// promptly, and at once when a `record` finds it past 64 KiB, so the event loops that record do
/// not wait for the disk. `flush()` and `close()` write on the caller's thread; past 8 MiB (a
/// writer that cannot keep up) `record` writes too, and so waits. A second lock serializes
/// writers; buffers are swapped under the first lock, so appending never waits for a write. A
/// write error is reported once on standard error; the trace then stops growing.
///
/// Observers (live streams: the control API's trace stream, the web UI, a replay following marks)
/// never run under that lock, so a slow one cannot stall the event loops that record. While any
/// are subscribed, `record` also copies its line to an observer queue, still under the lock so
/// the queue is in `seq` order, and the first recording thread to find no delivery in progress
/// becomes the deliverer: it hands the queue to the observers after releasing the lock and keeps
/// going until the queue is empty, while other threads only append. A third lock, held while
/// observers run, is what `removeObserver` waits on.
public final class TraceRecorder: Sendable {
    /// Buffered bytes that make `record` hand the buffer to the file.
    static let flushThreshold = 64 * 1024
    /// Buffered bytes past which `record` waits for a slow writer instead of growing the buffer.
    static let backpressureThreshold = 8 * 1024 * 1024

    private let encoder: TraceFieldEncoder
    /// What every empty body's digest finishes as (its fingerprint depends on the key only).
    private let emptyBodySummary: BodySummary
    private let start: MonotonicInstant
    private let isMemory: Bool
    private let state: Mutex<WriterState>
    private let writer: Mutex<OutputSlot>
    private let flusher: Mutex<PeriodicFlusher?>
    /// The flusher was woken to write and has not run since (see `requestWrite`).
    private let writeRequested = Atomic<Bool>(false)
    /// Held while observers run (see `deliverObserved`); taken before `state`, never the other way.
    private let observerCalls = Mutex(())
    /// The file the trace goes to, for `recentLines`; nil for standard output and memory.
    private let filePath: String?

    /// What `record` touches, under the first lock.
    private struct WriterState: ~Copyable {
        var seq: UInt64 = 0
        var buffer: JSONOutput
        var closed = false
        var clock: WallClock
        /// Live-stream subscribers; usually empty.
        var observers: [Observer] = []
        var nextObserverID: UInt64 = 0
        /// Lines recorded while observers were subscribed and not yet handed to them, in `seq` order.
        var observed = ObservedLines()
        /// A thread is handing `observed` to the observers now.
        var delivering = false
    }

    /// One subscriber, and the `seq` it subscribed after (it hears later lines only).
    private struct Observer {
        let id: UInt64
        let after: UInt64
        let callback: @Sendable (UnsafeBufferPointer<UInt8>) -> Void
    }

    /// Lines waiting for the observers: their bytes back to back, with each one's `seq` and end.
    private struct ObservedLines {
        var bytes: [UInt8] = []
        var lines: [(seq: UInt64, end: Int)] = []

        var isEmpty: Bool { lines.isEmpty }

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
            lines.removeAll(keepingCapacity: lines.capacity <= 4096)
        }
    }

    /// What writing touches, under the second lock: the file and an empty buffer to swap in.
    private struct OutputSlot: ~Copyable {
        var sink: TraceSink?
        var spare: JSONOutput
    }

    /// Which names hold secrets: what the writer redacts (a replay matches them the same way).
    public var redaction: RedactionPolicy { encoder.policy }

    /// What makes this trace a capture (bodies kept, secrets as pseudonyms or raw); nil for a trace.
    public let capture: CaptureOptions?

    /// Starts a trace: draws a fresh fingerprint key, opens the output and writes the header line.
    ///
    /// `flushInterval` is how often buffered events reach the output on their own; `.zero` turns
    /// the background flusher off. With `capture`, the trace is a capture: its header says so,
    /// secrets are written as the options say, and a capture that keeps raw secrets is created
    /// with mode 0600. Throws `TraceRecorderError` when the file cannot be created or no random
    /// key can be drawn.
    public init(
        output: TraceOutput, redaction: RedactionPolicy = .default, flushInterval: Duration = .milliseconds(100),
        capture: CaptureOptions? = nil
    ) throws {
        var key = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&key, Int32(key.count)) == 1 else {
            throw TraceRecorderError("cannot draw a random fingerprint key (RAND_bytes failed)")
        }
        let hmac = HMACSHA256(key: key)
        for index in key.indices { key[index] = 0 }
        let mode: SecretWriter.Mode
        switch capture?.secrets {
        case nil: mode = .fingerprint
        case .pseudonyms: mode = .pseudonym(PseudonymRegistry(hmac: hmac))
        case .keep: mode = .raw
        }
        encoder = TraceFieldEncoder(
            policy: redaction, secrets: SecretWriter(fingerprinter: Fingerprinter(hmac: hmac), mode: mode))
        var emptyBody = HMACSHA256.Computation(key: hmac)
        emptyBodySummary = BodyDigest.summary(of: &emptyBody, length: 0)
        self.capture = capture

        var openedSink: TraceSink?
        switch output {
        case .file(let path): openedSink = try TraceSink.openFile(path: path, privateMode: capture?.secrets == .keep)
        case .standardOutput: openedSink = TraceSink.standardOutput()
        case .memory: openedSink = nil
        }
        isMemory = openedSink == nil
        if case .file(let path) = output { filePath = path } else { filePath = nil }

        var clock = WallClock()
        var header = JSONOutput(capacity: Self.flushThreshold + 4096)
        header.appendRaw("{\"faultline_trace\":")
        header.appendInteger(Int64(TraceHeader.currentFormatVersion))
        header.appendRaw(",\"faultline\":")
        header.appendString(FaultlineVersion.string)
        header.appendRaw(",\"created\":\"")
        clock.appendNow(to: &header)
        header.appendRaw("\",\"fingerprint\":")
        header.appendString(Fingerprinter.schemeName)
        if let capture {
            header.appendRaw(",\"capture\":{\"secrets\":")
            header.appendString(capture.secrets == .keep ? TraceHeader.keptSecrets : TraceHeader.pseudonymSecrets)
            header.appendRaw(",\"body_limit\":")
            header.appendInteger(Int64(capture.bodyLimit))
            header.appendRaw("}")
        }
        header.appendRaw("}\n")
        start = MonotonicInstant.now()

        // The header goes out now, so even a trace with no events is a valid, readable file.
        if var fileSink = openedSink {
            if let failure = header.withBytes({ fileSink.writeAll($0) }) {
                fileSink.closeDescriptor()
                throw TraceRecorderError(failure)
            }
            header.removeAll()
            openedSink = fileSink
        }
        state = Mutex(WriterState(buffer: header, clock: clock))
        writer = Mutex(
            OutputSlot(sink: openedSink, spare: JSONOutput(capacity: isMemory ? 16 : Self.flushThreshold + 4096)))

        flusher = Mutex(nil)
        if !isMemory, flushInterval > .zero {
            let periodic = PeriodicFlusher(interval: flushInterval) { [weak self] in
                self?.writeRequested.store(false, ordering: .relaxed)
                self?.drain(waiting: false)
            }
            flusher.withLock { $0 = periodic }
        }
    }

    deinit {
        close()
    }

    /// Records one event: assigns it the next `seq` and the current wall and monotonic times, and
    /// encodes `fields` in order after `event`, `conn` and `flow` (omitted when nil), redacting
    /// secrets as the policy says. Cheap enough for the hot path; does nothing after `close()`.
    /// Field keys must not be `seq`, `wall`, `mono_ns`, `event`, `conn` or `flow`.
    public func record(
        _ kind: TraceEventKind, connection: ConnectionID? = nil, flow: FlowID? = nil, _ fields: [TraceField] = []
    ) {
        var scratch = TraceScratch(capacity: 256 + fields.count * 64)
        record(kind, connection: connection, flow: flow, fields, encodingIn: &scratch)
    }

    /// `record`, encoding the event in `scratch`, a buffer the caller keeps for its thread (an
    /// event loop has one), so an event on the hot path allocates nothing.
    public func record(
        _ kind: TraceEventKind, connection: ConnectionID? = nil, flow: FlowID? = nil, _ fields: [TraceField] = [],
        encodingIn scratch: inout TraceScratch
    ) {
        // Encoded and redacted on the caller's thread, outside the lock: the lock is held only to
        // stamp the line and copy it, so the loops that record rarely meet there.
        scratch.clear()
        scratch.line.appendRaw("\"event\":")
        scratch.line.appendString(kind.rawValue)
        if let connection {
            scratch.line.appendRaw(",\"conn\":")
            scratch.line.appendInteger(connection.rawValue)
        }
        if let flow {
            scratch.line.appendRaw(",\"flow\":")
            scratch.line.appendInteger(flow.rawValue)
        }
        encoder.appendFields(fields, to: &scratch.line, topLevel: true)
        scratch.line.appendRaw("}\n")

        let start = self.start
        let (buffered, deliver) = state.withLock { state -> (Int, Bool) in
            guard !state.closed else { return (0, false) }
            let lineStart = state.buffer.count
            state.seq += 1
            let monotonic = MonotonicInstant.now().nanoseconds(since: start)
            state.buffer.appendRaw("{\"seq\":")
            state.buffer.appendInteger(state.seq)
            state.buffer.appendRaw(",\"wall\":\"")
            state.clock.appendNow(to: &state.buffer)
            state.buffer.appendRaw("\",\"mono_ns\":")
            state.buffer.appendInteger(monotonic)
            state.buffer.appendByte(UInt8(ascii: ","))
            state.buffer.append(scratch.line)
            var deliver = false
            if !state.observers.isEmpty {
                state.buffer.withBytes { all in state.observed.bytes.append(contentsOf: all[lineStart...]) }
                state.observed.lines.append((state.seq, state.observed.bytes.count))
                deliver = !state.delivering
                state.delivering = true
            }
            return (state.buffer.count, deliver)
        }
        if deliver { deliverObserved() }
        if !isMemory && buffered >= Self.flushThreshold {
            if buffered >= Self.backpressureThreshold {
                drain(waiting: true)
            } else {
                requestWrite()
            }
        }
    }

    /// Has the buffer written off the recording thread: the flusher is woken (once, until it has
    /// run), so an event loop that records never waits for write(2). Without a flusher
    /// (`flushInterval: .zero`) the recording thread writes, unless another thread is writing.
    private func requestWrite() {
        // The first record past the threshold wakes the flusher; the next ones find it pending.
        guard writeRequested.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else {
            return
        }
        let woken = flusher.withLock { periodic -> Bool in
            periodic?.wake()
            return periodic != nil
        }
        if !woken {
            writeRequested.store(false, ordering: .relaxed)
            drain(waiting: false)
        }
    }

    /// Hands queued lines to the observers, outside the state lock, until the queue is empty. Runs
    /// on the thread whose `record` claimed the delivery; lines other threads queue meanwhile are
    /// taken on the next turn, so no line waits for a later `record`. The observer list is read
    /// under `observerCalls`, which `removeObserver` waits for, so a removed observer is never
    /// called after `removeObserver` returns.
    private func deliverObserved() {
        var batch = ObservedLines()
        while true {
            let delivered = observerCalls.withLock { _ -> Bool in
                let observers = state.withLock { state -> [Observer]? in
                    guard !state.observed.isEmpty else {
                        state.delivering = false
                        return nil
                    }
                    swap(&batch, &state.observed)
                    return state.observers
                }
                guard let observers else { return false }
                batch.bytes.withUnsafeBufferPointer { bytes in
                    var lineStart = 0
                    for (seq, end) in batch.lines {
                        let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<end])
                        for observer in observers where seq > observer.after { observer.callback(line) }
                        lineStart = end
                    }
                }
                batch.removeAll()
                return true
            }
            guard delivered else { return }
        }
    }

    /// Writes everything recorded so far to the output now (a no-op for `.memory`). When it
    /// returns, a reader of the file sees every event recorded before the call, as whole lines.
    public func flush() {
        drain(waiting: true)
    }

    /// Flushes, stops the background flusher and closes the file. Every event recorded before
    /// `close()` is then in the output; later `record` calls are ignored. Safe to call twice.
    public func close() {
        flusher.withLock { periodic in
            periodic?.stop()
            periodic = nil
        }
        if isMemory {
            state.withLock { $0.closed = true }
            return
        }
        writer.withLock { slot in
            state.withLock { $0.closed = true }
            writeBuffered(to: &slot)
            slot.sink?.closeDescriptor()
        }
    }

    /// What the writer puts in place of `secret` (`"fp:"` and 16 hex digits; in a capture its
    /// pseudonym or, with secrets kept, the secret itself), for callers that record a secret's
    /// identity in another way (a lineage table, a test). `kind` names a secret this capture has
    /// not seen yet (`access`, `refresh`, `cookie-sid`); a trace ignores it.
    public func fingerprint(_ secret: String, kind: String = "secret") -> String {
        encoder.secrets.name(secret, kind: .named(kind))
    }

    /// A digest for one body, keyed like this recorder's fingerprints; see `BodyDigest`.
    public func makeBodyDigest() -> BodyDigest {
        BodyDigest(hmac: encoder.secrets.fingerprinter.hmac, emptySummary: emptyBodySummary)
    }

    /// For `.memory` output: the whole trace so far, header line included. Empty for other outputs.
    public func memoryContents() -> String {
        guard isMemory else { return "" }
        return state.withLock { $0.buffer.text }
    }

    /// The last whole lines of the trace so far, at most `maxBytes` of them (the header line too
    /// when it fits): what a viewer that subscribes now shows of the past. It flushes first, so
    /// every line recorded before the call is there; a line recorded between `addObserver` and
    /// this call can be both here and in the observer (its `seq` tells). Reads the file back for a
    /// file trace; empty for standard output, which cannot be read back.
    public func recentLines(maxBytes: Int) -> [UInt8] {
        if isMemory {
            return state.withLock { state in
                state.buffer.withBytes { all in Self.wholeLines(Array(all.suffix(maxBytes)), cut: all.count > maxBytes)
                }
            }
        }
        guard let filePath else { return [] }
        flush()
        guard let tail = TraceSink.readTail(path: filePath, maxBytes: maxBytes) else { return [] }
        return Self.wholeLines(tail.bytes, cut: tail.cut)
    }

    /// `bytes` without its first line when `cut` says it may begin inside one.
    static func wholeLines(_ bytes: [UInt8], cut: Bool) -> [UInt8] {
        guard cut else { return bytes }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return [] }
        return Array(bytes[(newline + 1)...])
    }

    /// Subscribes `observer` to every line recorded from now on (one whole line per call, newline
    /// included, exactly as written), in `seq` order. It runs on some recording thread, outside
    /// the recorder's lock but one call at a time (never two at once, for any observer), and the
    /// bytes are valid only during the call: copy them, hand them off and return; never record,
    /// block, or call `removeObserver` in it. Returns the token for `removeObserver`.
    @discardableResult
    public func addObserver(
        _ observer: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void
    ) -> TraceObserverToken {
        state.withLock { state in
            state.nextObserverID += 1
            state.observers.append(Observer(id: state.nextObserverID, after: state.seq, callback: observer))
            return TraceObserverToken(id: state.nextObserverID, subscribedAfter: state.seq)
        }
    }

    /// Unsubscribes; once it returns the observer is never called again (it waits for a delivery
    /// in progress to finish). Unknown tokens are ignored. Never call it from an observer.
    public func removeObserver(_ token: TraceObserverToken) {
        state.withLock { $0.observers.removeAll { $0.id == token.id } }
        observerCalls.withLock { _ in }
    }

    /// Observers subscribed now (for tests that check a stream let go).
    public var observerCount: Int {
        state.withLock { $0.observers.count }
    }

    /// How many events have been recorded (the last `seq` assigned).
    public var eventCount: UInt64 {
        state.withLock { $0.seq }
    }

    /// Hands the buffer to the output. `waiting: false` skips the write when another thread is
    /// writing already (it will take this buffer next time), so `record` never queues behind it.
    private func drain(waiting: Bool) {
        guard !isMemory else { return }
        if waiting {
            writer.withLock { writeBuffered(to: &$0) }
        } else {
            _ = writer.withLockIfAvailable { writeBuffered(to: &$0) }
        }
    }

    /// Swaps the buffer out under the state lock and writes it. Call with the output lock held.
    private func writeBuffered(to slot: inout OutputSlot) {
        guard slot.sink != nil else { return }
        state.withLock { swap(&slot.spare, &$0.buffer) }
        guard slot.spare.count > 0 else { return }
        if let failure = slot.spare.withBytes({ slot.sink!.writeAll($0) }) {
            // Reported once: the sink refuses every later write.
            TraceSink.reportOnStandardError(failure)
        }
        if slot.spare.capacity > 4 * Self.flushThreshold {
            // A burst grew this buffer; do not keep megabytes around for good.
            slot.spare = JSONOutput(capacity: Self.flushThreshold + 4096)
        } else {
            slot.spare.removeAll()
        }
    }
}
