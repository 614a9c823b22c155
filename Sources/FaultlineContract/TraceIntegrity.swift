import FaultlineTrace

/// Checks the trace itself, event by event: a known header, `seq` gapless and increasing from 1,
/// `mono_ns` never going back, and no secret in clear (``SecretScanner``).
struct TraceIntegrity {
    let limit: Int
    private(set) var problems: [TraceProblem] = []
    private(set) var omitted = 0
    private var previousSeq: UInt64?
    private var previousMono: UInt64 = 0
    private var scanner = SecretScanner()
    /// False for a capture made with `--capture-secrets keep`: its header says the secrets are raw.
    private var scansSecrets = true

    init(limit: Int) { self.limit = limit }

    mutating func header(_ header: TraceHeader) {
        scanner.acceptsPseudonyms = header.captureSecrets == TraceHeader.pseudonymSecrets
        scansSecrets = header.captureSecrets != TraceHeader.keptSecrets
        if header.formatVersion != TraceHeader.currentFormatVersion {
            add(
                .header, seq: nil,
                "the trace header says format version \(header.formatVersion); this checker reads version \(TraceHeader.currentFormatVersion)"
            )
        }
    }

    mutating func check(_ event: TraceEvent) {
        let seq = event.seq
        if let previous = previousSeq {
            if seq <= previous {
                add(.seqOrder, seq: seq, "seq \(seq) does not follow seq \(previous)")
            } else if seq > previous + 1 {
                let missing = seq - previous - 1
                add(
                    .seqGap, seq: seq,
                    "seq jumps from \(previous) to \(seq): \(missing) event\(missing == 1 ? " is" : "s are") missing")
            }
            if event.monoNanoseconds < previousMono {
                add(
                    .clockOrder, seq: seq,
                    "mono_ns goes back at seq \(seq) (\(event.monoNanoseconds) after \(previousMono))")
            }
        } else if seq > 1 {
            let missing = seq - 1
            add(
                .seqGap, seq: seq,
                "the first event has seq \(seq): \(missing) earlier event\(missing == 1 ? " is" : "s are") missing")
        }
        if previousSeq.map({ seq > $0 }) ?? true { previousSeq = seq }
        previousMono = max(previousMono, event.monoNanoseconds)
        for finding in scansSecrets ? scanner.findings(in: event) : [] {
            add(.rawSecret, seq: seq, "\(event.kind.rawValue) at seq \(seq): \(finding) (a secret may be in clear)")
        }
    }

    private mutating func add(_ kind: TraceProblem.Kind, seq: UInt64?, _ message: String) {
        guard problems.count < limit else {
            omitted += 1
            return
        }
        problems.append(TraceProblem(kind, seq: seq, message: message))
    }
}
