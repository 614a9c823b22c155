import FaultlineCapture
import FaultlineTrace

extension TestProxy {
    /// The test's traffic so far as a HAR 1.2 document (UTF-8 JSON), as `faultline har export`
    /// writes it: one entry per answered exchange, secrets as the trace holds them (fingerprints,
    /// or pseudonyms in a capture). Throws `TraceReadError` when the trace cannot be parsed.
    public func har() throws -> [UInt8] {
        try Self.har(fromTrace: traceText)
    }

    /// The HAR of a trace held as JSON Lines.
    static func har(fromTrace text: String) throws -> [UInt8] {
        HARExporter.har(from: CaptureLoader.capture(from: try TraceReader.read(text), source: "TestProxy"))
    }
}
