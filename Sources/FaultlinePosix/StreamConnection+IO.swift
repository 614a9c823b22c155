/// Writing, and reacting to readiness: the byte-moving half of `StreamConnection`.
extension StreamConnection: SelectableHandler {
    /// Sends `bytes`: as much as the kernel takes now, the rest is copied into the outbound
    /// buffer and flushed when the socket is writable. Ignored after close, `shutdownWrite` or
    /// `closeAfterFlush`. A failure (EPIPE, ECONNRESET) closes the connection on the next tick.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        loop.assertInEventLoop()
        guard acceptsWrites, bytes.count > 0 else { return }
        var rest = bytes
        if outbound.isEmpty {
            do throws(SystemError) {
                switch try Posix.write(fd, bytes) {
                case .processed(let written):
                    if written == bytes.count { return }
                    rest = UnsafeRawBufferPointer(rebasing: bytes[written...])
                case .wouldBlock:
                    break
                }
            } catch {
                failLater(error)
                return
            }
        }
        let wasEmpty = outbound.isEmpty
        outbound.append(rest)
        updateInterest()
        if wasEmpty {
            outboundProgressAt = loop.now
            delegate?.streamConnectionDidQueueOutbound(self)
        }
    }

    /// Sends `bytes`; see `write(_: UnsafeRawBufferPointer)`.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    private var acceptsWrites: Bool {
        lifecycle != .closed && pendingError == nil && !writeShutdownRequested && !closeAfterFlushRequested
    }

    // MARK: - Readiness

    func handleReadiness(_ events: ReadinessEvents) {
        if let pendingError {
            closeNow(error: pendingError)
            return
        }
        var touchedSocket = false
        if !outbound.isEmpty && !events.isDisjoint(with: .writeProgress) {
            touchedSocket = true
            flush()
            guard lifecycle != .closed else { return }
        }
        // Checked after the flush: its didDrain callback may have paused reading.
        if isReading && !events.isDisjoint(with: .readProgress) {
            touchedSocket = true
            readAvailable()
            guard lifecycle != .closed else { return }
        }
        if events.contains(.error) && !touchedSocket {
            // Nothing above touched the socket, so fetch the error it reports.
            let code = (try? Posix.pendingError(fd)) ?? 0
            if code != 0 { closeNow(error: SystemError(errno: code, call: "socket")) }
        }
    }

    func closeForLoopShutdown() {
        closeNow(error: nil)
    }

    /// Reads up to `maximumReadsPerEvent` times into the loop's shared buffer.
    private func readAvailable() {
        let buffer = loop.readBuffer
        for _ in 0..<Self.maximumReadsPerEvent {
            let result: IOResult<Int>
            do throws(SystemError) {
                result = try Posix.read(fd, into: buffer)
            } catch {
                closeNow(error: error)
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                readEOF = true
                updateInterest()
                delegate?.streamConnectionDidReadEOF(self)
                return
            case .processed(let count):
                delegate?.streamConnection(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                // The delegate may have closed or paused us; and a short read means the socket
                // is drained, so skip the read that would only say EAGAIN.
                guard isReading, count == buffer.count else { return }
            }
        }
    }

    /// Writes queued output until the kernel pushes back or the queue is empty; on empty, drops
    /// write interest, tells the delegate, then carries out a pending shutdown or close.
    private func flush() {
        while !outbound.isEmpty {
            do throws(SystemError) {
                guard case .processed(let written) = try outbound.write(to: fd) else { return }
                if written > 0 { outboundProgressAt = loop.now }
            } catch {
                closeNow(error: error)
                return
            }
        }
        updateInterest()
        delegate?.streamConnectionDidDrainOutbound(self)
        guard lifecycle != .closed, outbound.isEmpty else { return }
        if closeAfterFlushRequested {
            closeNow(error: nil)
        } else if writeShutdownRequested {
            performShutdownWrite(deferringErrors: false)
        }
    }
}
