extension HostResolver {
    /// Resolves `host` on the calling thread (one `getaddrinfo`, no cache, no worker) and applies
    /// `port`: for a command-line client that needs one name once, before any event loop exists.
    /// IP literals return at once. Blocks for as long as the system resolver takes.
    public static func addressesNow(host: String, port: Int) throws(ResolveError) -> [SocketAddress] {
        guard (0...65535).contains(port) else {
            throw ResolveError(host: host, reason: .failed, code: 0, message: "port \(port) is out of range 0-65535")
        }
        if let literal = SocketAddress.literal(host, port: port) { return [literal] }
        return try lookup(host).get().map { $0.withPort(port) }
    }
}
