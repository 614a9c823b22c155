import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineCapture

/// `capture` written and read back; its source is the reader's, so it is set back for comparing.
private func roundTrip(_ capture: Capture) throws -> Capture {
    var back = CaptureLoader.capture(from: try TraceReader.read(CaptureWriter.text(capture)), source: capture.source)
    back.notes = capture.notes
    return back
}

@Test func aHandBuiltCaptureSurvivesWritingAtEveryField() throws {
    let capture = handBuiltCapture()
    let back = try roundTrip(capture)
    // Field by field first, so a failure names the field.
    for (original, read) in zip(capture.exchanges, back.exchanges) {
        #expect(read.flow == original.flow)
        #expect(read.connection == original.connection)
        #expect(read.duplicateOf == original.duplicateOf)
        #expect(read.role == original.role)
        #expect(read.lineage == original.lineage)
        #expect(read.credentials == original.credentials)
        #expect(read.received == original.received)
        #expect(read.forwarded == original.forwarded)
        #expect(read.responseReceived == original.responseReceived)
        #expect(read.responseEnded == original.responseEnded)
        #expect(read.delivered == original.delivered)
        #expect(read.clientRequest == original.clientRequest)
        #expect(read.upstreamRequest == original.upstreamRequest)
        #expect(read.forwardedBody == original.forwardedBody)
        #expect(read.response == original.response)
        #expect(read.deliveredStatus == original.deliveredStatus)
        #expect(read.deliveredBody == original.deliveredBody)
        #expect(read.synthetic == original.synthetic)
    }
    #expect(back.exchanges.count == capture.exchanges.count)
    #expect(back.timeline == capture.timeline)
    #expect(back.secrets == capture.secrets && back.hasBodies == capture.hasBodies)
    #expect(back.created == capture.created && back.bodyLimit == capture.bodyLimit)
    #expect(back == capture)
}

@Test func aRecordedCaptureSurvivesWriting() throws {
    for capture in [try recordedCapture(), try recordedCapture(secrets: .keep), try recordedCapture(plainTrace: true)] {
        #expect(try roundTrip(capture) == capture)
    }
}

@Test func anImportedHARSurvivesWriting() throws {
    let capture = try importHAR(toolHAR).get()
    #expect(try roundTrip(capture) == capture)
}

@Test func eachEventIsOneLineInSeqOrder() throws {
    let text = CaptureWriter.text(handBuiltCapture())
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.last == "")
    #expect(lines.count == 1 + 13 + 1)  // the header, one line per moment (seq 3 to 15), the final newline
    let trace = try TraceReader.read(text)
    #expect(trace.events.map(\.seq) == Array(3...15))
    #expect(
        trace.events.map(\.kind.rawValue) == [
            "request.received", "request.forwarded", "mark", "response.received", "response.body", "response.delivered",
            "request.received", "request.forwarded", "response.received", "response.body", "mark", "request.received",
            "response.delivered",
        ])
    #expect(trace.events[1].object("content")?["encoding"] == .string("utf8"))
    #expect(trace.events[4].object("content")?["encoding"] == .string("base64"))
    #expect(trace.events[7].int("duplicate_of") == 10)
    #expect(trace.events[12].bool("synthetic") == true)
    #expect(trace.header.captureSecrets == "pseudonyms")
    #expect(trace.header.attributes["capture"]?.objectValue?["body_limit"] == .int(4096))
}

@Test func rawSecretsAreWrittenPrivatelyAndTheHeaderSaysSo() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("imported.jsonl").path
    // An existing, world-readable file must not stay readable.
    _ = FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
    let imported = try importHAR(toolHAR).get()
    #expect(imported.secrets == .kept)
    try CaptureWriter.write(imported, toFile: path)
    #expect(try fileMode(path) == 0o600)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(try TraceReader.read(text).header.captureSecrets == "kept")
    #expect(text.contains("Bearer raw-token-123"))
    #expect(try CaptureLoader.load(path: path).secrets == .kept)

    let shared = directory.appendingPathComponent("pseudonyms.jsonl").path
    try CaptureWriter.write(try recordedCapture(), toFile: shared)
    #expect(try fileMode(shared) == 0o644)
    #expect(throws: CaptureWriteError.self) {
        try CaptureWriter.write(imported, toFile: directory.appendingPathComponent("no/such/dir").path)
    }
}

@Test func aPlainTracesCaptureHasNoCaptureHeader() throws {
    var capture = handBuiltCapture()
    capture.secrets = .fingerprints
    capture.hasBodies = false
    #expect(try !TraceReader.read(CaptureWriter.text(capture)).header.isCapture)
}
