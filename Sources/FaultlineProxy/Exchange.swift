import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace

/// The state of the flow a session is working on: one request on its way up and its response on
/// its way down. Both directions stream; neither body is ever held whole.
struct Exchange {
    /// Where the upstream connection stands.
    enum Upstream {
        case connecting
        case connected(UpstreamConnectionInfo)
    }

    /// Where the response stands.
    enum Response {
        case awaitingHead
        /// The head went to the client; body bytes are re-framed as `clientFraming`.
        case streaming(clientFraming: BodyFraming)
        case complete
    }

    var flow: Flow
    let route: RequestRoute
    let requestHead: HTTPRequestHead
    /// The request head as sent upstream, kept to resend it on a fresh connection when a pooled
    /// one turns out to be closed.
    let outboundHead: HTTPRequestHead
    let requestFraming: BodyFraming
    /// The client asked to close after this exchange (HTTP/1.0 without keep-alive, `Connection: close`),
    /// or its connection cannot be trusted any longer.
    var closeClientAfter: Bool

    var upstream: Upstream = .connecting
    /// Request bytes produced before the upstream connection existed.
    var pendingUpstreamBytes: [UInt8] = []
    var requestComplete = false
    var requestForwarded = false
    var requestBody: BodyDigest
    var requestBodySummary: BodySummary?

    var responseDecoder: HTTP1ResponseDecoder
    var response: Response = .awaitingHead
    var responseHead: HTTPResponseHead?
    var responseBody: BodyDigest
    var receivedResponseBytes = false

    var isUpstreamConnected: Bool {
        if case .connected = upstream { return true }
        return false
    }

    var responseStarted: Bool {
        if case .awaitingHead = response { return false }
        return true
    }
}

/// A `CONNECT` or upgraded connection relaying bytes unchanged in both directions.
struct Tunnel {
    let flow: FlowID
    let kind: Flow.Kind
    var bytesFromClient: Int64 = 0
    var bytesFromUpstream: Int64 = 0
    var clientReachedEOF = false
    var upstreamReachedEOF = false
}
