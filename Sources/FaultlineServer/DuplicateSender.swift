import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// Sends one copy of a request made by a `duplicate` action and reads its response, which no
/// client sees. Each copy is its own flow in the trace, with `duplicate_of` naming the original.
final class DuplicateSender: StreamConnectionDelegate {
    private let request: DuplicateRequest
    private let context: LoopContext
    private let flow: FlowID
    private var decoder = HTTP1ResponseDecoder()
    private var connection: Channel?
    private var status: Int?
    private var bodyLength: Int64 = 0

    init(_ request: DuplicateRequest, context: LoopContext) {
        self.request = request
        self.context = context
        self.flow = FlowID(context.flowIDs.next())
    }

    func start() {
        context.trace.record(
            .requestReceived, flow: flow,
            [
                .string("method", request.method), .target("url", request.url), .string("host", request.endpoint.host),
                .int("port", request.endpoint.port), .int("duplicate_of", request.original.rawValue),
            ])
        context.openConnection(to: request.endpoint) { [self] result in
            switch result {
            case .success(let channel):
                self.connection = channel
                channel.socket.delegate = self
                decoder.expectResponse(toMethod: request.method)
                channel.write(request.bytes)
                context.trace.record(
                    .requestForwarded, connection: channel.id, flow: flow,
                    [
                        .int("upstream_conn", channel.id.rawValue),
                        .string("upstream", channel.socket.remoteAddress?.description ?? request.endpoint.hostHeaderValue),
                        .int("duplicate_of", request.original.rawValue),
                    ])
            case .failure(let failure):
                context.trace.record(
                    .upstreamError, flow: flow,
                    [
                        .string("code", failure.code), .string("message", failure.description),
                        .int("duplicate_of", request.original.rawValue),
                    ])
                finish()
            }
        }
    }

    private func finish() {
        connection?.socket.delegate = nil
        connection?.socket.close()
        connection = nil
        context.duplicateFinished(self)
    }

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard let channel = self.connection, channel.tls != nil else {
            decode(bytes)
            return
        }
        for event in channel.receive(bytes) {
            if case .plaintext(let plaintext) = event { plaintext.withUnsafeBytes { decode($0) } }
        }
    }

    private func decode(_ bytes: UnsafeRawBufferPointer) {
        decoder.receive(bytes)
        do {
            while let event = try decoder.nextEvent() {
                switch event {
                case .interim: continue
                case .head(let head):
                    status = head.status
                    context.trace.record(
                        .responseReceived, flow: flow,
                        [.int("status", head.status), .int("duplicate_of", request.original.rawValue)])
                case .body(let body): bodyLength += Int64(body.count)
                case .end:
                    context.trace.record(
                        .responseDiscarded, flow: flow,
                        [
                            .int("status", status ?? 0), .int("length", bodyLength),
                            .int("duplicate_of", request.original.rawValue),
                        ])
                    finish()
                    return
                }
            }
        } catch {
            context.trace.record(
                .protocolError, flow: flow,
                [.string("side", "upstream"), .string("code", error.code), .int("duplicate_of", request.original.rawValue)])
            finish()
        }
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        decoder.receiveEOF()
        decode(UnsafeRawBufferPointer(start: nil, count: 0))
        if self.connection != nil { finish() }
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        self.connection = nil
        context.duplicateFinished(self)
    }
}

extension TraceEventKind {
    /// The response to a proxy-made copy of a request, read and dropped.
    static let responseDiscarded: TraceEventKind = "response.discarded"
}
