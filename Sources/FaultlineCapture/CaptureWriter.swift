import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Foundation

/// Writes a `Capture` as a capture file: JSON Lines in the trace format (README.md, "The trace")
/// that `CaptureLoader` reads back, so `load(write(capture))` equals `capture` in every field the
/// format carries.
///
/// The header says how secrets are written: a capture with bodies or raw secrets gets the
/// `capture` attribute (`"secrets":"kept"` for raw ones, else `"pseudonyms"`), so such a file
/// always reads back as having bodies; a plain trace's capture has none. Then, in `seq` order,
/// the events the model holds a moment for: `request.received`, `request.forwarded` (with the
/// request as it went upstream and its `content`), `response.received`, `response.body`,
/// `response.delivered` and `mark`. Values are written as the model holds them: the writer adds
/// no redaction of its own, which is why a capture with raw secrets is written privately.
public enum CaptureWriter {
    /// The capture file's text, a newline after every line.
    public static func text(_ capture: Capture) -> String {
        var output = header(capture).jsonBytes(indent: nil)
        output.append(UInt8(ascii: "\n"))
        for (_, line) in events(capture).sorted(by: { $0.seq < $1.seq }) {
            output.append(contentsOf: line.jsonBytes(indent: nil))
            output.append(UInt8(ascii: "\n"))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Writes the capture file at `path` (created or truncated): with mode 0600 when its secrets
    /// are raw, the policy of `faultline run --capture-secrets keep`, else 0644.
    public static func write(_ capture: Capture, toFile path: String) throws(CaptureWriteError) {
        try OutputFile.write(Array(text(capture).utf8), to: path, holdsRawSecrets: capture.secrets == .kept)
    }

    static func header(_ capture: Capture) -> JSONValue {
        var members: [(String, JSONValue?)] = [
            ("faultline_trace", .int(Int64(TraceHeader.currentFormatVersion))),
            ("faultline", .string(FaultlineVersion.string)),
            ("created", .string(capture.created ?? WallTime.now.rfc3339)),
            ("fingerprint", .string(fingerprintScheme)),
        ]
        if capture.hasBodies || capture.secrets != .fingerprints {
            let secrets = capture.secrets == .kept ? TraceHeader.keptSecrets : TraceHeader.pseudonymSecrets
            members.append(
                (
                    "capture",
                    .fields([("secrets", .string(secrets)), ("body_limit", capture.bodyLimit.map { .int(Int64($0)) })])
                ))
        }
        return .fields(members)
    }

    /// The header's `fingerprint`: how the fingerprints a trace holds were made (FaultlineTrace's
    /// `Fingerprinter`, HMAC-SHA256 cut to 64 bits).
    static let fingerprintScheme = TraceHeader.fingerprintScheme

    /// Every event line with its seq, in no particular order.
    static func events(_ capture: Capture) -> [(seq: UInt64, line: JSONValue)] {
        var lines: [(seq: UInt64, line: JSONValue)] = []
        for exchange in capture.exchanges {
            let event = EventLine(exchange: exchange)
            let client = exchange.clientRequest
            let url = client.url
            lines.append(
                event.line(
                    "request.received", at: exchange.received,
                    [
                        ("method", .string(client.method)), ("url", .string(url.description)),
                        ("host", .string(url.host)),
                        ("port", .int(Int64(url.port))), ("path", .string(url.path)),
                        ("version", .string(client.httpVersion)),
                        ("headers", headers(client.headers)), ("role", exchange.role.map(JSONValue.string)),
                        ("lineage", exchange.lineage.map(JSONValue.string)),
                        (
                            "credentials",
                            exchange.credentials.isEmpty ? nil : .array(exchange.credentials.map(JSONValue.string))
                        ),
                    ]))
            if let upstream = exchange.upstreamRequest, let forwarded = exchange.forwarded {
                lines.append(
                    event.line(
                        "request.forwarded", at: forwarded,
                        [
                            ("body", exchange.forwardedBody.map(summary)),
                            (
                                "request",
                                .fields([
                                    ("method", .string(upstream.method)), ("url", .string(upstream.url.description)),
                                    ("headers", headers(upstream.headers)),
                                ])
                            ),
                            ("content", upstream.body.map(content)),
                        ]))
            }
            if let response = exchange.response, let received = exchange.responseReceived {
                lines.append(
                    event.line(
                        "response.received", at: received,
                        [
                            ("status", .int(Int64(response.status))), ("reason", .string(response.reason)),
                            ("version", .string(response.httpVersion)), ("headers", headers(response.headers)),
                        ]))
                if let ended = exchange.responseEnded {
                    lines.append(
                        event.line(
                            "response.body", at: ended,
                            [("content", response.body.map(content)), ("trailers", response.trailers.map(headers))]))
                }
            }
            if let delivered = exchange.delivered {
                lines.append(
                    event.line(
                        "response.delivered", at: delivered,
                        [
                            ("status", exchange.deliveredStatus.map { .int(Int64($0)) }),
                            ("body", exchange.deliveredBody.map(summary)),
                            ("synthetic", exchange.synthetic ? .bool(true) : nil),
                        ]))
            }
        }
        for entry in capture.timeline {
            guard case .mark(let label) = entry.kind else { continue }
            lines.append(
                (
                    entry.at.seq,
                    .fields(momentFields(entry.at) + [("event", .string("mark")), ("label", .string(label))])
                ))
        }
        return lines
    }

    /// One flow's event lines: the line's own keys, then `conn` and `flow`, the fields, and
    /// `duplicate_of` on every event of a copy (as the recorder writes it).
    private struct EventLine {
        let exchange: CapturedExchange

        func line(_ kind: String, at moment: Moment, _ fields: [(String, JSONValue?)]) -> (
            seq: UInt64, line: JSONValue
        ) {
            let identity: [(String, JSONValue?)] = [
                ("event", .string(kind)), ("conn", exchange.connection.map(JSONValue.int)),
                ("flow", .int(exchange.flow)),
            ]
            let copy: [(String, JSONValue?)] = [("duplicate_of", exchange.duplicateOf.map(JSONValue.int))]
            return (moment.seq, .fields(momentFields(moment) + identity + fields + copy))
        }
    }

    private static func momentFields(_ moment: Moment) -> [(String, JSONValue?)] {
        [
            ("seq", .int(Int64(clamping: moment.seq))), ("wall", .string(moment.wall)),
            ("mono_ns", .int(Int64(clamping: moment.monoNanoseconds))),
        ]
    }

    /// `[[name, value], …]`, the trace's header list (wire order, repeated names kept).
    private static func headers(_ headers: HTTPHeaders) -> JSONValue {
        .array(headers.map { .array([.string($0.name), .string($0.value)]) })
    }

    private static func summary(_ body: BodySummary) -> JSONValue {
        .fields([("length", .int(body.length)), ("fp", .string(body.fingerprint))])
    }

    /// `{"length","encoding","data","truncated"}`: UTF-8 text when the bytes are, else base64, as
    /// the recorder writes captured bodies.
    private static func content(_ body: CapturedContent) -> JSONValue {
        let text = body.text
        return .fields([
            ("length", .int(body.length)), ("encoding", .string(text == nil ? "base64" : "utf8")),
            ("data", .string(text ?? Data(body.bytes).base64EncodedString())),
            ("truncated", body.truncated ? .bool(true) : nil),
        ])
    }
}
