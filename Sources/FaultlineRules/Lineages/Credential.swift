/// One credential seen on the wire, reduced to what may be kept: its kind, where it travelled
/// and a fingerprint. The raw value never leaves the extraction code.
public struct Credential: Sendable, Hashable, CustomStringConvertible {
    public let kind: CredentialKind
    /// Where it travelled, for people: `header Authorization`, `cookie session`,
    /// `set-cookie session`, `form refresh_token`, `json /access_token`.
    public let place: String
    /// From the tracker's injected fingerprint function (a keyed hash prefix in the proxy).
    public let fingerprint: String

    /// A credential as extracted (the tracker makes these from the wire; tests build them).
    public init(kind: CredentialKind, place: String, fingerprint: String) {
        self.kind = kind
        self.place = place
        self.fingerprint = fingerprint
    }

    public var description: String { "\(kind.rawValue)@\(place)=\(fingerprint)" }
}
