import FaultlineHTTP1

/// Makes a HAR entry's header list fit a capture, whose messages replay over HTTP/1.1.
///
/// Browsers export HTTP/2 and HTTP/3 exchanges with their pseudo-header fields (`:method`,
/// `:authority`, RFC 9113 §8.3), which are no header fields at all: `:authority` becomes `Host`
/// (§8.3.1 says it stands for it) and the others go. Hop-by-hop fields described the recorded
/// connection, not the message, and a proxy never forwards them (RFC 9110 §7.6.1): they go too,
/// with every field the `Connection` field names.
enum HARHeaderFilter {
    /// What the filter kept and what it dropped.
    struct Filtered {
        var headers: HTTPHeaders
        /// Pseudo-header fields left out (`:authority` among them when it became `Host`).
        var droppedPseudoHeaders: [String] = []
        /// Hop-by-hop fields left out.
        var droppedHopByHop: [String] = []
    }

    /// RFC 9110 §7.6.1's list, plus `Proxy-Connection` (old clients' spelling) and `Keep-Alive`.
    static let hopByHopNames: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade",
    ]

    static func filtered(_ pairs: [(name: String, value: String)]) -> Filtered {
        let named = Set(
            pairs.filter { $0.name.lowercased() == "connection" }
                .flatMap { $0.value.split(separator: ",") }
                .map { $0.trimmingOWS.lowercased() })
        var result = Filtered(headers: HTTPHeaders())
        var authority: String?
        for (name, value) in pairs {
            let lowered = name.lowercased()
            if lowered.hasPrefix(":") {
                if lowered == ":authority" { authority = value }
                result.droppedPseudoHeaders.append(name)
            } else if hopByHopNames.contains(lowered) || named.contains(lowered) {
                result.droppedHopByHop.append(name)
            } else {
                result.headers.add(name: name, value: value)
            }
        }
        if let authority, !result.headers.contains(name: "host") {
            // Host first, where an HTTP/1.1 client puts it (RFC 9112 §3.2).
            result.headers = HTTPHeaders([("Host", authority)] + result.headers.map { ($0.name, $0.value) })
        }
        return result
    }
}
