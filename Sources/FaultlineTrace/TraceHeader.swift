public import FaultlineCore

/// The first line of a trace: the format version and where the trace came from.
public struct TraceHeader: Sendable, Equatable {
    /// The format version this module writes and reads.
    public static let currentFormatVersion = 1

    /// `faultline_trace`: the trace format version.
    public let formatVersion: Int
    /// `faultline`: the version of Faultline that wrote the trace.
    public let faultlineVersion: String
    /// `created`: when the trace was started, RFC 3339 UTC.
    public let created: String
    /// `fingerprint`: how secrets were fingerprinted (`hmac-sha256-64`).
    public let fingerprint: String
    /// `fingerprint` as this module writes it (keyed HMAC-SHA256, 64 bits shown).
    public static let fingerprintScheme = Fingerprinter.schemeName

    /// `capture.secrets` of a capture whose secrets are pseudonyms.
    public static let pseudonymSecrets = "pseudonyms"
    /// `capture.secrets` of a capture that keeps raw secrets.
    public static let keptSecrets = "kept"

    /// Every other key of the header line, for forward compatibility (`capture` among them).
    public let attributes: [String: JSONValue]

    /// Makes a header; the reader makes them from line 1.
    public init(
        formatVersion: Int, faultlineVersion: String, created: String, fingerprint: String,
        attributes: [String: JSONValue] = [:]
    ) {
        self.formatVersion = formatVersion
        self.faultlineVersion = faultlineVersion
        self.created = created
        self.fingerprint = fingerprint
        self.attributes = attributes
    }

    /// True when the trace is a capture (it carries bodies).
    public var isCapture: Bool { attributes["capture"] != nil }

    /// How the capture writes secrets (`pseudonyms` or `kept`); nil for a trace.
    public var captureSecrets: String? { attributes["capture"]?["secrets"]?.stringValue }
}
