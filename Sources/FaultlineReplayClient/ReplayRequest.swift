public import FaultlineCapture
public import FaultlineHTTP1

/// A recorded request as the replay sends it: to the target, with live credentials, framed anew.
public struct ReplayRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// Pseudonyms sent as they are because no live value is known for them.
    public var unresolved: Set<String>

    /// Why a recorded request cannot be sent.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// `recorded` rewritten for `target`:
    /// - the target is the target's path prefix, then the recorded path and query;
    /// - `Host` is the target's authority (the recorded one with `keepHost`), first like a
    ///   client writes it;
    /// - hop-by-hop fields go (RFC 9110 §7.6.1, `HopByHopHeaders`), and so do the recorded
    ///   framing fields: the body is sent with a `Content-Length` of its own, or none when the
    ///   recorded request had neither a body nor a framing field;
    /// - every recorded credential with a live value in `credentials` is replaced, escaped for
    ///   where it stands (`CredentialEscaping`).
    ///
    /// Throws a refusal for a body the capture cut at its body limit: sending part of it would be
    /// a different request.
    public init(
        recorded: CapturedRequest, target: UpstreamEndpoint, keepHost: Bool, credentials: CredentialMap
    ) throws(Refusal) {
        if let body = recorded.body, body.truncated {
            throw Refusal(
                description:
                    "the capture kept \(body.bytes.count) of the body's \(body.length) bytes (--capture-body-limit)")
        }
        var unresolved: Set<String> = []
        let (requestTarget, targetUnresolved) = credentials.substituting(
            in: target.pathPrefix + recorded.url.target, escaping: .urlComponent)
        unresolved.formUnion(targetUnresolved)
        let host = keepHost ? recorded.url.hostHeaderValue : target.hostHeaderValue
        var headers: HTTPHeaders = [("Host", host)]
        for field in HopByHopHeaders.removing(from: recorded.headers) where !field.hasName("host") {
            let (value, fieldUnresolved) = credentials.substituting(in: field.value, escaping: .headerValue)
            unresolved.formUnion(fieldUnresolved)
            headers.add(name: field.name, value: value)
        }
        let (body, bodyUnresolved) = credentials.substituting(
            in: recorded.body?.bytes ?? [],
            escaping: .forBody(contentType: recorded.headers.first(name: "content-type")))
        unresolved.formUnion(bodyUnresolved)
        let wasFramed =
            recorded.headers.contains(name: "content-length") || recorded.headers.contains(name: "transfer-encoding")
        if !body.isEmpty || wasFramed { headers.add(name: "Content-Length", value: String(body.count)) }
        self.head = HTTPRequestHead(method: recorded.method, target: requestTarget, version: .http1_1, headers: headers)
        self.body = body
        self.unresolved = unresolved
    }

    /// Head and body as HTTP/1.1 bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(head, into: &bytes)
        bytes += body
        return bytes
    }
}

extension RecordedURL {
    /// `host[:port]` as a Host field carries it (the port left out when it is the scheme's default).
    var hostHeaderValue: String {
        UpstreamEndpoint(scheme: scheme, host: host, port: port).hostHeaderValue
    }
}
