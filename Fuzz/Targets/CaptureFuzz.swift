import FaultlineCapture
import FaultlineTrace

/// The capture loader, as `CaptureLoader.load(path:)` reads a file but from memory (no file per
/// input): a HAR goes to the importer, anything else is read as a trace and folded into
/// exchanges; a capture that loads is exported and turned into rules, as the commands do.
enum CaptureFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let capture: Capture
        if HARImporter.looksLikeHAR(bytes) {
            guard let imported = try? HARImporter.capture(fromHAR: bytes, source: "fuzz.capture") else { return }
            capture = imported
        } else {
            guard let trace = try? TraceReader.read(String(decoding: bytes, as: UTF8.self)) else { return }
            capture = CaptureLoader.capture(from: trace, source: "fuzz.capture")
        }
        use(capture)
    }

    /// What the commands do with a loaded capture: export it as HAR, derive order rules.
    static func use(_ capture: Capture) {
        let har = HARExporter.har(from: capture)
        fuzzCheck(HARImporter.looksLikeHAR(har), "an exported HAR that does not look like one")
        _ = OrderRules.scenario(from: capture)
    }
}
