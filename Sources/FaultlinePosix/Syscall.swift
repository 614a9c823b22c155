#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The result of a non-blocking call: it did something, or the kernel asked us to come back later.
enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

/// The one syscall shim: every socket call of this module goes through here.
///
/// Rules (the ones swift-nio's `System.swift` follows):
/// - `EINTR` is retried, so a signal never surfaces as an error;
/// - `EAGAIN`/`EWOULDBLOCK` becomes `.wouldBlock`, never an error;
/// - `EBADF`/`EFAULT` mean we passed a closed descriptor or a bad pointer: that is our bug, so it
///   is a precondition failure rather than something a caller could "handle";
/// - anything else throws a `SystemError` carrying `errno` and the call's name.
///
/// The call name is a `StaticString` so the hot path never builds a `String`.
enum Posix {
    /// Runs `body` until it stops failing with `EINTR`, mapping the failure as described above.
    @inline(__always)
    static func call<T: FixedWidthInteger>(
        _ name: StaticString, _ body: () -> T
    ) throws(SystemError) -> IOResult<T> {
        while true {
            let result = body()
            if result >= 0 { return .processed(result) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
            if code == EBADF || code == EFAULT {
                preconditionFailure("\(name) failed with errno \(code): Faultline passed a bad descriptor or pointer")
            }
            throw SystemError(errno: code, call: String(describing: name))
        }
    }

    /// Like `call`, for calls where "would block" cannot happen or is itself an error.
    @inline(__always)
    @discardableResult
    static func blockingCall<T: FixedWidthInteger>(
        _ name: StaticString, _ body: () -> T
    ) throws(SystemError) -> T {
        switch try call(name, body) {
        case .processed(let value): return value
        case .wouldBlock: throw SystemError(errno: EAGAIN, call: String(describing: name))
        }
    }

    #if canImport(Glibc)
    static let streamSocketType = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamSocketType = SOCK_STREAM
    #endif

    // MARK: - Sockets

    /// A new non-blocking, close-on-exec TCP socket for `family` (`AF_INET` or `AF_INET6`).
    static func makeStreamSocket(family: Int32) throws(SystemError) -> Int32 {
        #if canImport(Glibc)
        let type = streamSocketType | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return try blockingCall("socket") { Glibc.socket(family, type, 0) }
        #else
        let fd = try blockingCall("socket") { Darwin.socket(family, streamSocketType, 0) }
        do throws(SystemError) {
            try setNonBlocking(fd)
            try blockingCall("fcntl") { Darwin.fcntl(fd, F_SETFD, FD_CLOEXEC) }
            try setOption(fd, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: Int32(1))
        } catch {
            closeDescriptor(fd)
            throw error
        }
        return fd
        #endif
    }

    /// Puts `fd` in non-blocking mode (accepted sockets, since `accept4` does not import).
    static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try blockingCall("fcntl") { fcntl(fd, F_GETFL, 0) }
        if flags & O_NONBLOCK == 0 {
            try blockingCall("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
    }

    /// `setsockopt` with a plain value (an `Int32` flag, a `linger`, ...).
    static func setOption<T: BitwiseCopyable>(_ fd: Int32, level: Int32, name: Int32, value: T) throws(SystemError) {
        try withUnsafeBytes(of: value) { (bytes) throws(SystemError) -> Void in
            try blockingCall("setsockopt") {
                setsockopt(fd, level, name, bytes.baseAddress, socklen_t(bytes.count))
            }
        }
    }

    /// Sets `TCP_NODELAY`: request/response traffic must not wait for Nagle's algorithm.
    static func setNoDelay(_ fd: Int32) throws(SystemError) {
        try setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: Int32(1))
    }

    /// The pending error of a socket (`SO_ERROR`), which also clears it; 0 when there is none.
    static func pendingError(_ fd: Int32) throws(SystemError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try blockingCall("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) }
        return value
    }

    /// Bytes in `fd`'s kernel send queue, sent and not acknowledged or not sent yet (`TIOCOUTQ`
    /// on Linux, `SO_NWRITE` on Darwin); nil when the kernel does not say.
    static func kernelQueuedOutput(_ fd: Int32) -> Int? {
        var value: Int32 = 0
        #if canImport(Glibc)
        let result = withUnsafeMutablePointer(to: &value) { ioctl(fd, UInt(TIOCOUTQ), $0) }
        #elseif canImport(Darwin)
        var length = socklen_t(MemoryLayout<Int32>.size)
        let result = getsockopt(fd, SOL_SOCKET, SO_NWRITE, &value, &length)
        #endif
        return result == 0 ? Int(value) : nil
    }

    static func bind(_ fd: Int32, to address: SocketAddress) throws(SystemError) {
        try address.withSockAddr { (pointer, length) throws(SystemError) -> Void in
            #if canImport(Glibc)
            try blockingCall("bind") { Glibc.bind(fd, pointer, length) }
            #else
            try blockingCall("bind") { Darwin.bind(fd, pointer, length) }
            #endif
        }
    }

    static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        #if canImport(Glibc)
        try blockingCall("listen") { Glibc.listen(fd, backlog) }
        #else
        try blockingCall("listen") { Darwin.listen(fd, backlog) }
        #endif
    }

    /// Accepts one connection, or `.wouldBlock` when the queue is empty. The new socket is blocking.
    static func accept(_ fd: Int32) throws(SystemError) -> IOResult<Int32> {
        #if canImport(Glibc)
        try call("accept") { Glibc.accept(fd, nil, nil) }
        #else
        try call("accept") { Darwin.accept(fd, nil, nil) }
        #endif
    }

    /// Starts connecting; `true` when connected at once, `false` when in progress (`EINPROGRESS`).
    static func connect(_ fd: Int32, to address: SocketAddress) throws(SystemError) -> Bool {
        try address.withSockAddr { (pointer, length) throws(SystemError) -> Bool in
            do throws(SystemError) {
                #if canImport(Glibc)
                try blockingCall("connect") { Glibc.connect(fd, pointer, length) }
                #else
                try blockingCall("connect") { Darwin.connect(fd, pointer, length) }
                #endif
                return true
            } catch {
                if error.errno == EINPROGRESS { return false }
                throw error
            }
        }
    }

    // MARK: - Bytes

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        #if canImport(Glibc)
        try call("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        #else
        try call("read") { Darwin.read(fd, buffer.baseAddress, buffer.count) }
        #endif
    }

    /// Sends bytes on a socket. On Linux, MSG_NOSIGNAL makes a vanished peer an EPIPE error
    /// rather than a SIGPIPE (Darwin sockets get SO_NOSIGPIPE instead), even where nobody set
    /// SIGPIPE to ignored.
    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        #if canImport(Glibc)
        try call("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
        #else
        try call("write") { Darwin.write(fd, buffer.baseAddress, buffer.count) }
        #endif
    }

    /// Gathers `vectors` into one send (`sendmsg` with MSG_NOSIGNAL on Linux, `writev` on Darwin).
    static func writev(_ fd: Int32, _ vectors: UnsafeBufferPointer<iovec>) throws(SystemError) -> IOResult<Int> {
        #if canImport(Glibc)
        var message = msghdr()
        message.msg_iov = UnsafeMutablePointer(mutating: vectors.baseAddress)
        message.msg_iovlen = vectors.count
        return try call("sendmsg") { Glibc.sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
        #else
        try call("writev") { Darwin.writev(fd, vectors.baseAddress, Int32(vectors.count)) }
        #endif
    }

    static func shutdownWrite(_ fd: Int32) throws(SystemError) {
        #if canImport(Glibc)
        try blockingCall("shutdown") { Glibc.shutdown(fd, Int32(SHUT_WR)) }
        #else
        try blockingCall("shutdown") { Darwin.shutdown(fd, SHUT_WR) }
        #endif
    }

    /// Closes `fd`. `EINTR` is not retried: on Linux the descriptor is gone anyway and a retry
    /// could close a descriptor another thread just opened. Other errors (a late `ECONNRESET`)
    /// leave nothing to do, so they are dropped.
    static func closeDescriptor(_ fd: Int32) {
        #if canImport(Glibc)
        let result = Glibc.close(fd)
        #else
        let result = Darwin.close(fd)
        #endif
        if result < 0 {
            let code = errno
            precondition(code != EBADF, "close(\(fd)) failed with EBADF: Faultline closed a descriptor twice")
        }
    }

    // MARK: - Addresses

    static func localAddress(_ fd: Int32) -> SocketAddress? {
        SocketAddress.fromKernel { pointer, length in getsockname(fd, pointer, length) }
    }

    static func peerAddress(_ fd: Int32) -> SocketAddress? {
        SocketAddress.fromKernel { pointer, length in getpeername(fd, pointer, length) }
    }
}
