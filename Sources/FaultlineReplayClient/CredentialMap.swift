import FaultlineTrace

/// What stands for each recorded credential now: recorded value (a pseudonym, or in a capture
/// with kept secrets the raw value) → the live value the server issued in its place, or one the
/// user supplied (`--secret`).
///
/// A capture's secrets are pseudonyms, so a replayed request would show the server names it never
/// issued. Once a live answer issues a credential where the recorded answer had one
/// (`CredentialSites`), every later request carries the live value instead: in its target,
/// headers and body, escaped for each place (`CredentialEscaping`).
public struct CredentialMap: Sendable {
    /// Raw recorded values shorter than this are never learned: replacing such short text
    /// wherever it occurs would change unrelated bytes (PseudonymRegistry's rule for scrubbing).
    public static let minimumRawLength = 8

    /// Whether the capture's secrets are pseudonyms, to be found wherever they stand.
    public let findsPseudonyms: Bool
    /// Recorded value → live value.
    public private(set) var liveValues: [String: String]
    /// The live values, for keeping them out of reports.
    private var live: Set<String>

    /// A map for a capture whose secrets are pseudonyms (`findsPseudonyms`) or raw, starting with
    /// the values the user supplied.
    public init(findsPseudonyms: Bool, supplied: [String: String] = [:]) {
        self.findsPseudonyms = findsPseudonyms
        liveValues = supplied
        live = Set(supplied.values)
    }

    /// Whether `recorded` is worth learning: a pseudonym, or a raw value long enough to replace
    /// as text.
    public func isLearnable(_ recorded: String) -> Bool {
        (findsPseudonyms && Pseudonym.isPseudonym(recorded)) || recorded.utf8.count >= Self.minimumRawLength
    }

    /// Records that `live` stands for `recorded` from now on. Returns false (and changes nothing)
    /// when either is empty, they are equal, or `recorded` is not learnable.
    @discardableResult
    public mutating func learn(recorded: String, live value: String) -> Bool {
        guard !value.isEmpty, value != recorded, isLearnable(recorded) else { return false }
        liveValues[recorded] = value
        live.insert(value)
        return true
    }

    /// Whether `text` is a live credential this map learned or was given.
    public func isLiveValue(_ text: String) -> Bool { live.contains(text) }

    /// One recorded credential found in some bytes.
    public struct Occurrence: Sendable, Equatable {
        public var range: Range<Int>
        public var recorded: String
    }

    /// Every recorded credential in `bytes`, in order and not overlapping: each pseudonym (known
    /// or not), and each raw recorded value this map knows (the longest first where two start
    /// at one place).
    public func occurrences(in bytes: [UInt8]) -> [Occurrence] {
        Self.occurrences(of: Set(liveValues.keys), in: bytes, findsPseudonyms: findsPseudonyms)
    }

    /// Every pseudonym in `bytes` (when `findsPseudonyms`) and every other value of `values`, in
    /// order and not overlapping, the longest first where two start at one place.
    static func occurrences(of values: Set<String>, in bytes: [UInt8], findsPseudonyms: Bool) -> [Occurrence] {
        var pseudonyms: [Occurrence] = []
        if findsPseudonyms {
            pseudonyms = Pseudonym.ranges(in: bytes).map {
                Occurrence(range: $0, recorded: String(decoding: bytes[$0], as: UTF8.self))
            }
        }
        let raw = values.filter { !$0.isEmpty && !(findsPseudonyms && Pseudonym.isPseudonym($0)) }
            .map { Array($0.utf8) }.sorted { $0.count > $1.count }
        guard !raw.isEmpty else { return pseudonyms }
        var merged: [Occurrence] = []
        var remaining = pseudonyms[...]
        var index = 0
        while index < bytes.count {
            if let pseudonym = remaining.first, pseudonym.range.lowerBound == index {
                merged.append(pseudonym)
                index = pseudonym.range.upperBound
                remaining = remaining.dropFirst()
                continue
            }
            let limit = remaining.first?.range.lowerBound ?? bytes.count
            if let value = raw.first(where: {
                index + $0.count <= limit && bytes[index..<index + $0.count].elementsEqual($0)
            }) {
                merged.append(
                    Occurrence(range: index..<index + value.count, recorded: String(decoding: value, as: UTF8.self)))
                index += value.count
            } else {
                index += 1
            }
        }
        return merged
    }

    /// `bytes` with every recorded credential that has a live value replaced by it, escaped for
    /// `escaping`; and the pseudonyms left in place because no live value is known (or because
    /// the live value cannot stand there).
    public func substituting(in bytes: [UInt8], escaping: CredentialEscaping) -> (
        bytes: [UInt8], unresolved: Set<String>
    ) {
        var output: [UInt8] = []
        var unresolved: Set<String> = []
        var copied = 0
        for occurrence in occurrences(in: bytes) {
            guard let value = liveValues[occurrence.recorded], let escaped = escaping.escaped(value) else {
                if findsPseudonyms, Pseudonym.isPseudonym(occurrence.recorded) {
                    unresolved.insert(occurrence.recorded)
                }
                continue
            }
            output += bytes[copied..<occurrence.range.lowerBound]
            output += escaped
            copied = occurrence.range.upperBound
        }
        guard copied > 0 else { return (bytes, unresolved) }
        output += bytes[copied...]
        return (output, unresolved)
    }

    /// `text` with live values in place of recorded ones (see `substituting(in:escaping:)`).
    public func substituting(in text: String, escaping: CredentialEscaping) -> (text: String, unresolved: Set<String>) {
        let (bytes, unresolved) = substituting(in: Array(text.utf8), escaping: escaping)
        return (String(decoding: bytes, as: UTF8.self), unresolved)
    }
}
