/// What turns a trace into a capture: each exchange's bodies are kept, and secrets are written as
/// pseudonyms (or, on request, as themselves).
public struct CaptureOptions: Sendable, Equatable {
    /// How a capture writes the secrets it carries.
    public enum Secrets: String, Sendable, CaseIterable {
        /// `flp.KIND.LINEAGE.N` in place of every secret: a capture that can be shared.
        case pseudonyms
        /// The raw values: the file is created with mode 0600 and its header says so.
        case keep
    }

    /// Bytes of each body kept by default: 1 MiB.
    public static let defaultBodyLimit = 1 << 20

    public var secrets: Secrets
    /// Bytes kept of each body; a longer body is marked `truncated`.
    public var bodyLimit: Int

    public init(secrets: Secrets = .pseudonyms, bodyLimit: Int = Self.defaultBodyLimit) {
        self.secrets = secrets
        self.bodyLimit = bodyLimit
    }
}
