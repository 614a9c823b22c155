/// This run's side of the credential state: which recorded answers the replay has given so far,
/// and when it first handed out each recorded credential's fresh value. A recorded rejection
/// applies from the point of THIS run that matches its recorded cause (a client whose winner
/// changes between runs reaches the recorded logout, revocation or reuse at another moment), so
/// the question "rejected now?" is asked of the run, with the recording's `CredentialHistory`.
/// Sans-I/O: times are passed in. Not thread-safe: `ReplaySource` guards it.
struct CredentialRun: Sendable {
    private var given: Set<Int> = []
    /// Fingerprint → when this run first handed out its fresh value (nanoseconds on the run's clock).
    private var handedOut: [String: Int64] = [:]

    init() {}

    /// The replay answered as recorded exchange `index` did, handing out fresh values for the
    /// credentials `issuing` (fingerprints), at `now`.
    mutating func answered(_ index: Int, issuing: [String], at now: Int64) {
        given.insert(index)
        for fingerprint in issuing where handedOut[fingerprint] == nil { handedOut[fingerprint] = now }
    }

    /// The recorded rejection of `fingerprint` if it applies at this point of the run: its cause's
    /// recorded answer was given in this run (or, for expiry, the fresh value has lived as long as
    /// the recorded one had when it was rejected); nil otherwise.
    func rejection(of fingerprint: String, in history: CredentialHistory, at now: Int64) -> CredentialRejection? {
        guard let rejection = history.rejection(of: fingerprint) else { return nil }
        if let after = rejection.after { return given.contains(after) ? rejection : nil }
        guard let lifetime = rejection.lifetime, let since = handedOut[fingerprint] else { return nil }
        return now - since >= Int64(clamping: lifetime) ? rejection : nil
    }
}
