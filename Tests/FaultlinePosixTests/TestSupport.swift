import FaultlineCore
import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
/// `send` flags for test sockets: no SIGPIPE when the peer is gone.
let noSignal = Int32(MSG_NOSIGNAL)
#else
let noSignal: Int32 = 0
#endif

/// A wait that missed its deadline: the test fails instead of hanging.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    var description: String { "deadline exceeded waiting for \(what)" }
}

/// A value some other thread provides once; the test thread waits for it with a deadline.
final class Promise<Value: Sendable>: Sendable {
    private let state = ConditionLock<Value?>(nil)

    init() {}

    /// Provides the value; later calls are ignored.
    func fulfill(_ value: Value) {
        state.withLock { if $0 == nil { $0 = value } }
        state.broadcast()
    }

    var isFulfilled: Bool { state.withLock { $0 != nil } }

    /// The value, or `DeadlineExceeded` after `seconds`.
    func wait(seconds: Double = 10, _ what: String = "a promise") throws -> Value {
        guard let value = state.wait(until: { $0 != nil }, timeoutSeconds: seconds, then: { $0! }) else {
            throw DeadlineExceeded(what: what)
        }
        return value
    }
}

/// Thread-safe state shared between loop callbacks and the test thread, with waits on it.
final class Shared<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`'s mutex (see ConditionLock).
    private let lock: ConditionLock<Value>

    init(_ value: Value) { lock = ConditionLock(value) }

    func update<R>(_ body: (inout Value) -> R) -> R {
        defer { lock.broadcast() }
        return lock.withLock(body)
    }

    var value: Value { lock.withLock { $0 } }

    /// Waits until `ready` holds; `DeadlineExceeded` after `seconds`.
    func wait(seconds: Double = 10, _ what: String, until ready: (Value) -> Bool) throws {
        guard lock.wait(until: ready, timeoutSeconds: seconds, then: { _ in true }) != nil else {
            throw DeadlineExceeded(what: what)
        }
    }
}

/// Runs `body` on `loop` and waits (with a deadline) for its result.
func onLoop<T: Sendable>(_ loop: EventLoop, seconds: Double = 10, _ body: @escaping @Sendable () throws -> T) throws
    -> T
{
    let promise = Promise<Result<T, any Error>>()
    loop.execute { promise.fulfill(Result { try body() }) }
    return try promise.wait(seconds: seconds, "a task on \(loop.name)").get()
}

/// A group that is always shut down, even when the test throws.
func withGroup<T>(loops: Int = 2, _ body: (EventLoopGroup) throws -> T) throws -> T {
    let group = try EventLoopGroup(loopCount: loops, namePrefix: "test-loop")
    defer { group.shutdown() }
    return try body(group)
}

/// Deterministic test bytes: position-dependent, so reordering or loss shows.
func pattern(count: Int, seed: UInt8 = 0) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var index = 0
        while index < count {
            buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8 &+ Int(seed))
            index += 1
        }
        initialized = count
    }
}

/// Records what a connection tells its delegate; optional hooks react on the loop thread.
///
/// `@unchecked Sendable`: the hooks are set before the connection starts and only called on the
/// loop thread; the record is a `Shared` (mutex-protected).
final class RecordingDelegate: StreamConnectionDelegate, @unchecked Sendable {
    struct Record {
        var received: [UInt8] = []
        var readCalls = 0
        var byteCount = 0
        var eofs = 0
        var drains = 0
        var closes: [SystemError?] = []
        var callbacksAfterClose = 0
    }

    let record = Shared(Record())
    var onRead: ((StreamConnection, UnsafeRawBufferPointer) -> Void)?
    var onEOF: ((StreamConnection) -> Void)?
    var onDrain: ((StreamConnection) -> Void)?
    var onClose: ((StreamConnection, SystemError?) -> Void)?
    /// Keeps itself alive until the connection closes (the connection holds its delegate weakly).
    private var selfReference: RecordingDelegate?
    var keepsReceivedBytes = true

    init(retainUntilClosed: Bool = false) {
        if retainUntilClosed { selfReference = self }
    }

    private func noteCallback(_ body: (inout Record) -> Void) {
        record.update { record in
            if !record.closes.isEmpty { record.callbacksAfterClose += 1 }
            body(&record)
        }
    }

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        let keep = keepsReceivedBytes
        noteCallback { record in
            record.readCalls += 1
            record.byteCount += bytes.count
            if keep { record.received.append(contentsOf: bytes) }
        }
        onRead?(connection, bytes)
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        noteCallback { $0.eofs += 1 }
        onEOF?(connection)
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {
        noteCallback { $0.drains += 1 }
        onDrain?(connection)
    }

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        noteCallback { $0.closes.append(error) }
        onClose?(connection, error)
        selfReference = nil
    }
}

/// A blocking client socket for the far side of a test, with 10 s send/receive timeouts so a
/// stuck test fails instead of hanging.
final class BlockingClient {
    private(set) var fd: Int32

    init(connectingTo address: SocketAddress) throws {
        fd = socket(address.family, Posix.streamSocketType, 0)
        guard fd >= 0 else { throw SystemError(errno: errno, call: "socket") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = address.withSockAddr { connect(fd, $0, $1) }
        guard result == 0 else {
            let error = SystemError(errno: errno, call: "connect")
            close(fd)
            throw error
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Closes with SO_LINGER {1, 0}: the server's socket gets RST.
    func abort() {
        var abort = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
        close(fd)
        fd = -1
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, noSignal) }
            guard written > 0 else { throw SystemError(errno: errno, call: "send") }
            offset += written
        }
    }

    /// Reads exactly `count` bytes (or throws on EOF, error or timeout).
    func read(exactly count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if got == 0 { throw DeadlineExceeded(what: "\(count) bytes, got EOF after \(offset)") }
            guard got > 0 else { throw SystemError(errno: errno, call: "recv") }
            offset += got
        }
        return bytes
    }

    /// Reads until EOF; returns the bytes, or throws the error that ended the stream.
    func readToEOF(limit: Int = 64 << 20) throws -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while all.count <= limit {
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if got == 0 { return all }
            guard got > 0 else { throw SystemError(errno: errno, call: "recv") }
            all.append(contentsOf: chunk[..<got])
        }
        throw DeadlineExceeded(what: "EOF within \(limit) bytes")
    }

    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }
}

/// A listener whose accepted connections echo everything back and close on EOF.
func makeEchoListener(
    address: SocketAddress, group: EventLoopGroup, balancing: Listener.Balancing = .roundRobin,
    served: Shared<[String]>? = nil
) throws -> Listener {
    try Listener(address: address, group: group, ids: IDGenerator(), balancing: balancing) { connection in
        #expect(connection.loop.inEventLoop)
        let delegate = RecordingDelegate(retainUntilClosed: true)
        delegate.keepsReceivedBytes = false
        delegate.onRead = { connection, bytes in connection.write(bytes) }
        delegate.onEOF = { connection in connection.closeAfterFlush() }
        connection.delegate = delegate
        served?.update { $0.append(connection.loop.name) }
        connection.start()
    }
}

/// A connection and its delegate, parked for later use on the connection's loop.
///
/// `@unchecked Sendable`: the connection is only touched inside `onLoop(connection.loop)` tasks
/// (tests go through `use`), the delegate's record is mutex-protected.
final class ServerSide: @unchecked Sendable {
    let connection: StreamConnection
    let delegate: RecordingDelegate

    init(connection: StreamConnection, delegate: RecordingDelegate) {
        self.connection = connection
        self.delegate = delegate
    }

    /// Runs `body` with the connection on its loop and waits for the result.
    func use<T: Sendable>(_ body: @escaping @Sendable (StreamConnection) throws -> T) throws -> T {
        try onLoop(connection.loop) { try body(self.connection) }
    }
}

/// A listener whose accepted connections get a `RecordingDelegate` prepared by `configure`
/// (on the loop thread, before `start()`), and are kept for the test to inspect.
final class ServerHarness: Sendable {
    let listener: Listener
    let accepted = Shared<[ServerSide]>([])

    init(
        group: EventLoopGroup, address: String = "127.0.0.1:0",
        configure: @escaping @Sendable (StreamConnection, RecordingDelegate) -> Void = { _, _ in }
    ) throws {
        let accepted = self.accepted
        listener = try Listener(address: SocketAddress(parsing: address), group: group, ids: IDGenerator()) {
            connection in
            let delegate = RecordingDelegate()
            connection.delegate = delegate
            configure(connection, delegate)
            accepted.update { $0.append(ServerSide(connection: connection, delegate: delegate)) }
            connection.start()
        }
    }

    /// The `index`-th accepted connection, waiting for it if needed.
    func connection(_ index: Int = 0) throws -> ServerSide {
        try accepted.wait("accepted connection #\(index)") { $0.count > index }
        return accepted.value[index]
    }

    func client() throws -> BlockingClient {
        try BlockingClient(connectingTo: listener.localAddress)
    }
}
