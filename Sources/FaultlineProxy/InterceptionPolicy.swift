public import FaultlineRules

/// Which `CONNECT` targets the proxy opens up (terminates TLS for, with a certificate minted by
/// its CA) and which it tunnels untouched, in the manner of mitmproxy's `ignore_hosts` and
/// `allow_hosts`.
///
/// A host is intercepted when it matches one of `intercept` (or `intercept` is empty: every
/// host) and none of `ignore`. The proxy asks twice: with the `CONNECT` host before answering
/// (an ignored one is tunnelled the classic way, connecting first), and with the SNI name of the
/// ClientHello (RFC 6066 §3) once it has arrived, since a client may `CONNECT` to an address and
/// name the host only in TLS.
public struct InterceptionPolicy: Sendable {
    /// Hosts to intercept; empty means all.
    public let intercept: [HostGlob]
    /// Hosts never intercepted, whatever `intercept` says.
    public let ignore: [HostGlob]

    /// Intercepts every host matching one of `intercept` (all when empty) and none of `ignore`.
    public init(intercept: [HostGlob] = [], ignore: [HostGlob] = []) {
        self.intercept = intercept
        self.ignore = ignore
    }

    /// True when the proxy should terminate TLS for `host`.
    public func intercepts(_ host: String) -> Bool {
        guard intercept.isEmpty || intercept.contains(where: { $0.matches(host) }) else { return false }
        return !ignore.contains { $0.matches(host) }
    }
}
