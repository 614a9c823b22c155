import FaultlineCore
import FaultlineHTTP1
import FaultlineRules

/// The flow's states, each with the data that exists only in it: the request decision and its plan
/// from the decision on, the response plan behind the response gate and while the body streams,
/// and what the client was sent once its head went out.
extension FlowMachine {
    enum State {
        /// Reading the request body the rules or the profile look at.
        case deciding
        /// The request-phase question is out; request body bytes wait in `pendingBody`.
        case awaitingRequestDecision
        /// The rules answered; the plan's gate (fault, hold, delay, respond, forward) is being
        /// chosen within the same input, so no input ever finds the flow here.
        case following(Decided)
        case requestHeld(Decided, HoldSpec)
        case requestDelayed(Decided)
        /// Reading the whole request body for a request-phase JSON edit.
        case collectingRequest(Decided)
        /// The upstream is asked for; waiting for its response head. Flows without rules (and
        /// copies) have no decision.
        case forwarding(Decided?)
        /// The response-phase question is out; the upstream's head and what followed it wait.
        case awaitingResponseDecision(Decided, AwaitedResponse)
        /// The upstream head arrived and waits behind a response-phase gate.
        case responseGated(Decided, ResponseGate, PendingResponse)
        /// The client has its response head; its body is relayed as it comes.
        case streaming(Decided?, ResponseStream)
        /// The client has its whole response (a replacement); the upstream's body is read and dropped.
        case draining(Decided?, ResponseStream, FlowOutcome)
        /// A request-phase `stall` fault: nothing happens until its deadline.
        case stalled(Decided?)
        case ended(FlowOutcome)
    }

    /// The request-phase answer and the plan that follows from it.
    struct Decided {
        let decision: RequestDecision
        /// Out of line, as the response plans below: it rides on most states, and each state
        /// change moves the payload (a plan is about 300 bytes).
        @OutOfLine var plan: RequestPlan
        /// The rules that fired on this flow (request phase, then response phase), for
        /// `delivered:<rule>` once its response is delivered.
        var firedRules: [RuleID]

        init(_ decision: RequestDecision) {
            self.decision = decision
            self.plan = RequestPlan(decision.fired)
            self.firedRules = decision.fired.map(\.id)
        }
    }

    /// What closed the response gate.
    enum ResponseGate {
        case held(HoldSpec)
        case delayed
        /// Reading the whole body for a JSON edit (also the gate's first state, while the plan's
        /// fault, hold and delay are looked at).
        case collecting
        /// A `stall` fault: nothing is sent until its deadline.
        case stalled
    }

    /// An upstream response head waiting for its decision, and the upstream inputs after it.
    struct AwaitedResponse {
        enum Input {
            case body(ArraySlice<UInt8>)
            case end(HTTPHeaders?)
            case broke(code: String, message: String)
        }
        var head: HTTPResponseHead
        var length: FlowBodyLength
        var inputs: [Input] = []
    }

    /// The upstream response waiting behind the gate, the response plan it follows, and what the
    /// plan armed for its body once it streams.
    struct PendingResponse {
        var head: HTTPResponseHead
        var length: FlowBodyLength
        @OutOfLine var plan: ResponsePlan
        /// The cookies the fired response rules replay, as the decision read them.
        var replayedCookies: [String: String]
        var body: [UInt8] = []
        var ended = false
        var trailers: HTTPHeaders?
        var cut: ResponseCut?
        /// The lineage tracker reads this response's body (a login or refresh answer).
        var teesBody = false
    }

    /// A response whose head the client has: what it was sent, and what still applies to the body.
    struct ResponseStream {
        let status: Int
        let headers: HTTPHeaders
        /// The response plan the head went out under (nil for a response no response rule saw).
        var plan: ResponsePlan? { planBox?.wrappedValue }
        /// The gate's box, shared: no response rule, no box.
        private let planBox: OutOfLine<ResponsePlan>?
        var cut: ResponseCut?
        /// A copy of the body for the lineage tracker; nil once it outgrew the body limit.
        var tee: [UInt8]?

        init(status: Int, headers: HTTPHeaders, plan: OutOfLine<ResponsePlan>?, cut: ResponseCut?, tee: [UInt8]?) {
            self.status = status
            self.headers = headers
            self.planBox = plan
            self.cut = cut
            self.tee = tee
        }
    }

    /// A `close-mid-body` or `truncate` fault: body bytes still allowed before the cut, and
    /// whether the cut is a reset.
    struct ResponseCut {
        var remaining: Int
        let reset: Bool

        /// The cut a `close-mid-body` (reset) or `truncate` (clean close) fault arms; nil for others.
        init?(_ fault: TransportFault) {
            switch fault {
            case .closeMidBody(let bytes): (remaining, reset) = (bytes, true)
            case .truncate(let bytes): (remaining, reset) = (bytes, false)
            default: return nil
            }
        }
    }

    // MARK: What the states carry

    /// The request decision and its plan, in every state after the decision.
    var decided: Decided? {
        switch state {
        case .following(let decided), .requestHeld(let decided, _), .requestDelayed(let decided),
            .collectingRequest(let decided), .awaitingResponseDecision(let decided, _),
            .responseGated(let decided, _, _):
            return decided
        case .forwarding(let decided), .streaming(let decided, _), .draining(let decided, _, _),
            .stalled(let decided):
            return decided
        case .deciding, .awaitingRequestDecision, .ended:
            return nil
        }
    }

    var decision: RequestDecision? { decided?.decision }

    /// The request plan (empty before the decision, and for flows without rules).
    var requestPlan: RequestPlan { decided?.plan ?? RequestPlan() }

    /// The response plan, from the response decision until the flow ends.
    var responsePlan: ResponsePlan? {
        switch state {
        case .responseGated(_, _, let pending): return pending.plan
        case .streaming(_, let stream), .draining(_, let stream, _): return stream.plan
        default: return nil
        }
    }

    /// The response being streamed to the client, once its head went out.
    var responseStream: ResponseStream? {
        if case .streaming(_, let stream) = state { return stream }
        return nil
    }
}
