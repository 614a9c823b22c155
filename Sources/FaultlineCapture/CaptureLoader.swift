import FaultlineCore
import FaultlineHTTP1
public import FaultlineTrace
import Foundation

/// Reads a capture, a trace or a HAR file into a `Capture`.
///
/// A trace or capture is JSON Lines with a `faultline_trace` header (TraceReader reads it, and
/// its errors name the line); a file whose JSON has a `log` object is HAR 1.2 (`HARImporter`).
public enum CaptureLoader {
    /// Reads the file at `path`, whichever of the three it is.
    public static func load(path: String) throws(CaptureLoadError) -> Capture {
        let bytes = try contents(path: path)
        if HARImporter.looksLikeHAR(bytes) {
            return try HARImporter.capture(fromHAR: bytes, source: path)
        }
        let trace: Trace
        do {
            trace = try TraceReader.read(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw CaptureLoadError("\(path):\(error.line): \(error.message)")
        }
        return capture(from: trace, source: path)
    }

    /// The bytes of the file at `path`; the error says whether it is missing, a directory or unreadable.
    public static func contents(path: String) throws(CaptureLoadError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw CaptureLoadError(
                "\(path): \(exists ? (isDirectory.boolValue ? "is a directory" : "cannot be read") : "no such file")")
        }
        return [UInt8](data)
    }

    /// Builds the model from a trace already read.
    public static func capture(from trace: Trace, source: String) -> Capture {
        var builder = Builder()
        for event in trace.events { builder.consume(event) }
        let secrets: Capture.Secrets
        switch trace.header.captureSecrets {
        case TraceHeader.pseudonymSecrets?: secrets = .pseudonyms
        case TraceHeader.keptSecrets?: secrets = .kept
        default: secrets = .fingerprints
        }
        return Capture(
            source: source, secrets: secrets, hasBodies: trace.header.isCapture,
            exchanges: builder.order.compactMap { builder.exchanges[$0] }, timeline: builder.timeline,
            credentialKinds: builder.credentialKinds,
            created: trace.header.created.isEmpty ? nil : trace.header.created,
            bodyLimit: trace.header.attributes["capture"]?["body_limit"]?.intValue.map { Int($0) })
    }

    /// Folds events into exchanges by flow ID.
    private struct Builder {
        var exchanges: [Int64: CapturedExchange] = [:]
        var order: [Int64] = []
        var timeline: [TimelineEntry] = []
        var credentialKinds: [String: String] = [:]

        mutating func consume(_ event: TraceEvent) {
            let moment = Moment(seq: event.seq, monoNanoseconds: event.monoNanoseconds, wall: event.wall)
            if event.kind.rawValue.hasPrefix("lineage.") {
                // `kind=value` entries: which credentials are refresh tokens, for a replay's rotation.
                for key in ["issued", "presented", "replaced", "revoked"] {
                    for entry in event.strings(key) ?? [] {
                        guard let equals = entry.firstIndex(of: "=") else { continue }
                        credentialKinds[String(entry[entry.index(after: equals)...])] = String(entry[..<equals])
                    }
                }
                return
            }
            if event.kind.rawValue == "mark", let label = event.string("label") {
                timeline.append(TimelineEntry(.mark(label), at: moment))
                return
            }
            guard let flow = event.flow.map({ Int64($0.rawValue) }) else { return }
            switch event.kind.rawValue {
            case "request.received":
                guard let method = event.string("method"), let urlText = event.string("url"),
                    let url = RecordedURL(urlText)
                else { return }  // CONNECT: no exchange to replay
                var exchange = CapturedExchange(
                    flow: flow, received: moment,
                    clientRequest: CapturedRequest(
                        method: method, url: url, httpVersion: event.string("version") ?? "HTTP/1.1",
                        headers: Self.headers(event.headers("headers")), body: nil))
                exchange.connection = event.connection.map { Int64($0.rawValue) }
                exchange.duplicateOf = event.int("duplicate_of")
                exchange.role = event.string("role")
                exchange.lineage = event.string("lineage")
                exchange.credentials = event.strings("credentials") ?? []
                if exchanges[flow] == nil { order.append(flow) }
                exchanges[flow] = exchange
                if exchange.duplicateOf == nil { timeline.append(TimelineEntry(.received(flow: flow), at: moment)) }
            case "request.forwarded":
                guard var exchange = exchanges[flow] else { return }
                exchange.forwarded = moment
                var upstream = exchange.clientRequest
                if let sent = event.object("request") {
                    if let method = sent["method"]?.stringValue { upstream.method = method }
                    if let text = sent["url"]?.stringValue, let url = RecordedURL(text) { upstream.url = url }
                    if let fields = sent["headers"] { upstream.headers = Self.headers(fields) }
                }
                upstream.body = Self.content(event.object("content"))
                exchange.upstreamRequest = upstream
                exchange.forwardedBody = event.body("body")
                exchanges[flow] = exchange
            case "response.received":
                guard var exchange = exchanges[flow] else { return }
                exchange.responseReceived = moment
                exchange.response = CapturedResponse(
                    status: Int(event.int("status") ?? 0), reason: event.string("reason") ?? "",
                    httpVersion: event.string("version") ?? "HTTP/1.1", headers: Self.headers(event.headers("headers")),
                    body: nil)
                exchanges[flow] = exchange
            case "response.body":
                guard var exchange = exchanges[flow], exchange.response != nil else { return }
                exchange.responseEnded = moment
                exchange.response!.body = Self.content(event.object("content"))
                if let trailers = event.headers("trailers") { exchange.response!.trailers = Self.headers(trailers) }
                exchanges[flow] = exchange
            case "response.delivered":
                guard var exchange = exchanges[flow] else { return }
                exchange.delivered = moment
                exchange.deliveredStatus = event.int("status").map(Int.init)
                exchange.deliveredBody = event.body("body")
                exchange.synthetic = event.bool("synthetic") ?? false
                exchanges[flow] = exchange
                if exchange.duplicateOf == nil { timeline.append(TimelineEntry(.delivered(flow: flow), at: moment)) }
            default:
                return
            }
        }

        static func headers(_ pairs: [(name: String, value: String)]?) -> HTTPHeaders {
            HTTPHeaders((pairs ?? []).map { ($0.name, $0.value) })
        }

        /// A nested `[[name, value], ...]` value (the trace's header-list form).
        static func headers(_ value: JSONValue) -> HTTPHeaders {
            HTTPHeaders(
                (value.arrayValue ?? []).compactMap { element in
                    guard let pair = element.arrayValue, pair.count == 2, let name = pair[0].stringValue,
                        let text = pair[1].stringValue
                    else { return nil }
                    return (name, text)
                })
        }

        /// `{"length","encoding","data","truncated"}` back to bytes; nil when absent or unreadable.
        static func content(_ object: [String: JSONValue]?) -> CapturedContent? {
            guard let object, let data = object["data"]?.stringValue else { return nil }
            let bytes: [UInt8]
            if object["encoding"]?.stringValue == "base64" {
                guard let decoded = Data(base64Encoded: data) else { return nil }
                bytes = [UInt8](decoded)
            } else {
                bytes = Array(data.utf8)
            }
            return CapturedContent(
                bytes: bytes, length: object["length"]?.intValue ?? Int64(bytes.count),
                truncated: object["truncated"]?.boolValue ?? false)
        }
    }
}
