import FaultlineCapture

/// The HAR importer (`replay`, `har import`); a HAR that imports is exported again, as
/// `faultline har export` would write it, and the rules `rules from-capture` would write.
enum HARFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        _ = HARImporter.looksLikeHAR(bytes)
        guard let capture = try? HARImporter.capture(fromHAR: bytes, source: "fuzz.har") else { return }
        CaptureFuzz.use(capture)
    }
}
