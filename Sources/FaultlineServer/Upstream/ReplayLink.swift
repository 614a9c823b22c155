import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix

/// A flow's upstream when the server replays a recording: it reads the request the flow's codec
/// writes (HTTP/1.1 bytes, as a socket would), asks the `ReplayResponder` once the request is
/// complete, and hands the answer back as the bytes of an HTTP/1.1 response. The session, the
/// flow core and the rules see an upstream connection like any other; nothing reaches the
/// network.
final class ReplayLink {
    /// Request body bytes kept for matching; a longer body is matched on its first bytes and length.
    static let matchedBodyLimit = 1 << 20
    /// Request bytes kept to send on to a real upstream (`--unmatched forward`).
    static let forwardableLimit = 8 << 20

    let flow: FlowID
    let endpoint: UpstreamEndpoint
    let id: ConnectionID
    private var decoder = HTTP1RequestDecoder()
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyLength: Int64 = 0
    /// Every byte the flow wrote, while it is few enough to send on for real.
    private(set) var raw: [UInt8]? = []
    private(set) var asked = false
    var answered = false
    /// The request asked for `100 Continue` (RFC 9110 §10.1.1): an origin would say it before the
    /// body, so the replay does too, and a client that waits for it does not wait a second.
    private(set) var owesContinue = false
    var deadline: TimerHandle?

    init(flow: FlowID, endpoint: UpstreamEndpoint, id: ConnectionID) {
        self.flow = flow
        self.endpoint = endpoint
        self.id = id
    }

    /// What the flow wrote: the request, complete when this returns it (once).
    enum Progress {
        case incomplete
        case complete(UpstreamRequest)
        case malformed(HTTP1Error)
    }

    func receive(_ bytes: [UInt8]) -> Progress {
        guard !asked else { return .incomplete }  // after a 101, whatever follows is not ours
        if raw != nil, raw!.count + bytes.count <= Self.forwardableLimit {
            raw!.append(contentsOf: bytes)
        } else {
            raw = nil
        }
        decoder.receive(bytes)
        do {
            while let event = try decoder.nextEvent() {
                switch event {
                case .head(let requestHead):
                    head = requestHead
                    owesContinue =
                        requestHead.version == .http1_1
                        && requestHead.headers.first(name: "expect")?.lowercased() == "100-continue"
                case .body(let chunk):
                    bodyLength += Int64(chunk.count)
                    let room = Self.matchedBodyLimit - body.count
                    if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
                case .end:
                    guard let head else { continue }
                    asked = true
                    return .complete(
                        UpstreamRequest(flow: flow, endpoint: endpoint, head: head, body: body, bodyLength: bodyLength))
                }
            }
        } catch {
            return .malformed(error)
        }
        return .incomplete
    }

    /// `100 Continue`, once, when the request asked for it and the answer has not begun.
    func takeContinue() -> [UInt8]? {
        guard owesContinue, !answered else { return nil }
        owesContinue = false
        return Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    }

    /// The bytes of a recorded response, framed for HTTP/1.1: with its length, or chunked when it
    /// has trailers (RFC 9112 §7.1.2); hop-by-hop fields of the recording are not replayed.
    static func encode(_ head: HTTPResponseHead, body: [UInt8], trailers: HTTPHeaders?) -> [UInt8] {
        var head = head
        head.version = .http1_1
        for name in ["content-length", "transfer-encoding", "connection", "keep-alive"] {
            head.headers.remove(name: name)
        }
        let bodiless = (100..<200).contains(head.status) || head.status == 204 || head.status == 304
        var bytes: [UInt8] = []
        if let trailers, !trailers.isEmpty, !bodiless {
            head.headers.add(name: "Transfer-Encoding", value: "chunked")
            HTTP1Encoder.encode(head, into: &bytes)
            if !body.isEmpty { HTTP1Encoder.encodeChunk(body, into: &bytes) }
            HTTP1Encoder.encodeLastChunk(trailers: trailers, into: &bytes)
            return bytes
        }
        if !bodiless { head.headers.add(name: "Content-Length", value: String(body.count)) }
        HTTP1Encoder.encode(head, into: &bytes)
        if !bodiless { bytes += body }
        return bytes
    }
}
