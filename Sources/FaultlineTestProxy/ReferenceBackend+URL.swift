public import FaultlineBackend
public import Foundation

extension ReferenceBackend {
    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`) while running, else nil: the `upstream`
    /// to give `TestProxy.start`.
    ///
    /// ```swift
    /// let backend = ReferenceBackend()        // 127.0.0.1, an ephemeral port
    /// _ = try backend.start()
    /// defer { backend.stop() }
    /// let proxy = try TestProxy.start(upstream: backend.baseURL!, rules: .directory("Rules"))
    /// ```
    public var baseURL: URL? { address.flatMap { URL(string: "http://\($0)") } }
}
