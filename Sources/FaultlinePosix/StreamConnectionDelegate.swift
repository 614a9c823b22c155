/// Receives what happens on a `StreamConnection`, always on the connection's loop thread.
///
/// Every callback may call back into the connection (write, pause, shut down, close), including
/// closing it from `didRead`. After `didCloseWith` no callback follows.
public protocol StreamConnectionDelegate: AnyObject {
    /// Bytes arrived. `bytes` point into the loop's shared read buffer and are valid only during
    /// this call: copy what you keep. Called only while reading is not paused.
    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer)

    /// The peer shut down its write side (FIN). No more `didRead` follows; we may still write,
    /// and the connection stays open until someone closes it.
    func streamConnectionDidReadEOF(_ connection: StreamConnection)

    /// The outbound buffer went from empty to non-empty: the kernel did not take a whole write
    /// (the peer reads slower than we write, or not at all). Called from inside `write`, so it
    /// must not close the connection; a timer armed here can (`outboundStalledSince` says how
    /// long the queued bytes have waited). Optional: does nothing by default.
    func streamConnectionDidQueueOutbound(_ connection: StreamConnection)

    /// The outbound buffer went from non-empty to empty: everything written so far is in the
    /// kernel. A good moment to resume reading from the other side of a proxy.
    func streamConnectionDidDrainOutbound(_ connection: StreamConnection)

    /// The connection is closed: `error` is nil when we closed it (`close`, `closeAfterFlush`,
    /// `resetAndClose`, loop shutdown), or the failure that closed it (e.g. ECONNRESET, EPIPE).
    /// Delivered exactly once; no callback follows.
    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?)
}

extension StreamConnectionDelegate {
    /// Does nothing: most delegates have no use for the moment output starts to queue.
    public func streamConnectionDidQueueOutbound(_ connection: StreamConnection) {}
}
