import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// The state of the flow a session is working on: one request on its way up and its response on
/// its way down. Both directions stream; neither body is ever held whole.
///
/// A class, not a struct: the session mutates it in place at every step, and as a value its many
/// members were copied (and retained) each time (seen in the benchmark's profile). It belongs to
/// one session, which is confined to one event loop.
final class Exchange {
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

    init(
        flow: Flow, route: RequestRoute, requestHead: HTTPRequestHead, outboundHead: HTTPRequestHead,
        requestFraming: BodyFraming, closeClientAfter: Bool, requestBody: BodyDigest,
        responseDecoder: HTTP1ResponseDecoder, responseBody: BodyDigest
    ) {
        self.flow = flow
        self.route = route
        self.requestHead = requestHead
        self.outboundHead = outboundHead
        self.requestFraming = requestFraming
        self.closeClientAfter = closeClientAfter
        self.requestBody = requestBody
        self.responseDecoder = responseDecoder
        self.responseBody = responseBody
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
    /// The head the upstream sent.
    var responseHead: HTTPResponseHead?
    /// The head the client got (after rewrites and re-framing).
    var sentResponseHead: HTTPResponseHead?
    var responseBody: BodyDigest
    var receivedResponseBytes = false
    /// `CONNECT` only: the proxy answered 200 before connecting (to read the ClientHello), so a
    /// failure can no longer be answered with an HTTP status.
    var connectAnswered = false
    /// `CONNECT` with interception on: why this one is tunnelled instead (`ignored`, `not-tls`).
    var tunnelReason: String?

    // MARK: Rules (only used when the proxy has a FlowPolicy)

    /// What stands between the request and its upstream connection.
    enum RequestGate: Equatable {
        /// Forwarding as soon as connected.
        case open
        /// Reading the body the decision needs.
        case awaitingDecision
        /// Stopped by a `hold` action until released.
        case held
        /// Waiting out a `delay` action.
        case delayed
        /// Answered without upstream (a synthetic response or a fault).
        case answered
    }

    /// What stands between the upstream response and the client.
    enum ResponseGate: Equatable {
        case open
        case held
        case delayed
        /// Reading the whole upstream body for a JSON edit.
        case collecting
        /// A synthetic response replaced the upstream one; its bytes are read and dropped.
        case replaced
        /// A `stall` fault: nothing is sent until its deadline.
        case stalled
    }

    var requestGate: RequestGate = .open
    var decision: FlowPolicy.RequestDecision?
    var requestPlan = RequestPlan()
    /// The decoded request body, kept while a rule, the profile or a duplicate needs it.
    var collectedBody: [UInt8]?
    var responseGate: ResponseGate = .open
    var responsePlan = ResponsePlan()
    /// The upstream head waiting behind a closed response gate.
    var pendingResponseHead: HTTPResponseHead?
    /// Decoded upstream body bytes waiting behind a closed response gate.
    var heldResponseBody: [UInt8] = []
    var upstreamEnded = false
    var upstreamTrailers: HTTPHeaders?
    /// A copy of the response body for the lineage tracker (login and refresh responses).
    var responseTee: [UInt8]?
    /// A `close-mid-body` or `truncate` fault: body bytes still allowed before the cut.
    var cutAfter: Int?
    var cutWithReset = false

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
