/// Writes a secret where the trace would show it: as its keyed fingerprint (every trace), as a
/// pseudonym (a capture, the default), or as itself (a capture made with secrets kept).
///
/// The redaction scanners call it with what they know of the place (`SecretKind`); a fingerprint
/// ignores that, a pseudonym is named from it and from `lineage`, the lineage the event says the
/// secret belongs to.
struct SecretWriter: Sendable {
    enum Mode: Sendable {
        case fingerprint
        case pseudonym(PseudonymRegistry)
        case raw
    }

    let fingerprinter: Fingerprinter
    let mode: Mode
    /// The `lineage` field of the event being written, for a secret named in it for the first time.
    var lineage: String?

    init(fingerprinter: Fingerprinter, mode: Mode) {
        self.fingerprinter = fingerprinter
        self.mode = mode
    }

    /// True when a secret is written as a pseudonym.
    var namesPseudonyms: Bool {
        if case .pseudonym = mode { return true }
        return false
    }

    /// True when secrets are written as they are (a capture made with secrets kept).
    var keepsRaw: Bool {
        if case .raw = mode { return true }
        return false
    }

    /// Appends what stands for `secret` (no quotes, JSON-escaped).
    @inline(__always)
    func append(_ secret: UnsafeBufferPointer<UInt8>, kind: @autoclosure () -> SecretKind, to output: inout JSONOutput)
    {
        switch mode {
        case .fingerprint:
            fingerprinter.append(secret, to: &output)
        case .pseudonym(let registry):
            withUTF8(of: registry.pseudonym(for: secret, kind: kind(), lineage: lineage)) { output.append($0) }
        case .raw:
            output.appendEscaped(secret)
        }
    }

    /// What stands for `secret`, as a String (the lineage tracker's credentials, `.secret` fields).
    func name(_ secret: String, kind: SecretKind) -> String {
        var output = JSONOutput(capacity: 32)
        withUTF8(of: secret) { bytes in
            switch mode {
            case .fingerprint: fingerprinter.append(bytes, to: &output)
            case .pseudonym(let registry):
                withUTF8(of: registry.pseudonym(for: bytes, kind: kind, lineage: lineage)) { output.append($0) }
            case .raw: output.append(bytes)
            }
        }
        return output.text
    }

    /// The bytes a captured body is written with: every secret the registry knows replaced
    /// (pseudonym mode), else the bytes themselves.
    func scrubbed(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard case .pseudonym(let registry) = mode else { return nil }
        return registry.scrubbed(bytes)
    }
}
