import FaultlineCore
import FaultlineFlow
import FaultlineTrace
import Testing

@testable import FaultlineProxy

/// An HTTP/1 session keeps its flow and upstream in a `FlowSlot` only while a request is served:
/// an idle keep-alive connection carries neither (memory per idle connection, Benchmarks/idle).
@Suite struct FlowSlotTests {
    private static let request = Array("GET http://127.0.0.1:8081/a HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n\r\n".utf8)
    private static let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

    private static func session() throws -> HTTP1ProxySession {
        let trace = try TraceRecorder(output: .memory, flushInterval: .zero)
        var session = HTTP1ProxySession(
            connectionID: ConnectionID(1), configuration: ProxyConfiguration(mode: .forward),
            tracing: FlowTracing(of: trace), flowIDs: IDGenerator())
        _ = session.start()
        return session
    }

    /// Feeds the request; returns the flow that asked for an upstream.
    private static func sendRequest(_ session: inout HTTP1ProxySession) throws -> FlowID {
        let actions = request.withUnsafeBytes { session.clientDidRead($0) }
        let flow = actions.lazy.compactMap { action -> FlowID? in
            if case .connectUpstream(let id, _, _, _) = action { return id }
            return nil
        }.first
        return try #require(flow, "the request asked for no upstream: \(actions)")
    }

    private static let upstream = UpstreamConnectionInfo(
        id: ConnectionID(2), remoteAddress: "127.0.0.1:8081", reused: true)

    @Test func aSessionHoldsASlotOnlyWhileItServesARequest() throws {
        var session = try Self.session()
        #expect(session.slot == nil, "a connection that sent nothing has no slot")
        for _ in 0..<3 {
            let flow = try Self.sendRequest(&session)
            #expect(session.slot != nil && session.flowID == flow)
            _ = session.upstreamDidConnect(flow: flow, Self.upstream)
            #expect(session.hasUpstream)
            let actions = Self.response.withUnsafeBytes { session.upstreamDidRead(flow: flow, $0) }
            #expect(actions.contains { if case .releaseUpstream = $0 { true } else { false } })
            #expect(session.slot == nil, "the kept-alive connection between requests has no slot")
            #expect(session.flowID == nil && !session.hasUpstream && session.upstreamStatus == nil)
        }
    }

    /// Sessions are values: a copy made mid-request writes to a slot of its own. (Not the whole
    /// flow: its body digests are objects both copies would share.)
    @Test func aCopyOfASessionServingARequestDoesNotShareItsSlot() throws {
        var session = try Self.session()
        let flow = try Self.sendRequest(&session)
        var copy = session
        let sentByCopy = copy.upstreamDidConnect(flow: flow, Self.upstream)
        #expect(session.slot !== copy.slot)
        let sentByOriginal = session.upstreamDidConnect(flow: flow, Self.upstream)
        for actions in [sentByCopy, sentByOriginal] {
            #expect(actions.contains { if case .writeToUpstream = $0 { true } else { false } }, "\(actions)")
        }
    }
}
