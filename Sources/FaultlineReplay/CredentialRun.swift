/// This run's side of the credential state: which recorded answers the replay has given so far,
/// and when it first handed out each recorded credential's fresh value. A recorded rejection
/// applies from the point of THIS run that matches its recorded cause (a client whose winner
/// changes between runs reaches the recorded logout, revocation or reuse at another moment), so
/// the question "rejected now?" is asked of the run, with the recording's `CredentialHistory`.
/// An expiry is asked of the run's clock (`ReplayClock.hasExpired`): `--clock` decides what a
/// recorded lifetime means in this run. Sans-I/O: times are passed in. Not thread-safe:
/// `ReplaySource` guards it.
struct CredentialRun: Sendable {
    /// A moment of the run: monotonic nanoseconds since it started (`elapsed`), and what its
    /// clock reads then (`now`, nanoseconds since the epoch: `ReplayClock.now(wall:elapsed:)`).
    struct Time: Sendable, Equatable {
        let elapsed: Int64
        let now: Int64
    }

    let clock: ReplayClock
    private var given: Set<Int> = []
    /// Fingerprint → when this run first handed out its fresh value (`Time.elapsed`).
    private var handedOut: [String: Int64] = [:]

    init(clock: ReplayClock = ReplayClock()) {
        self.clock = clock
    }

    /// The replay answered as recorded exchange `index` did, handing out fresh values for the
    /// credentials `issuing` (fingerprints), at `time`.
    mutating func answered(_ index: Int, issuing: [String], at time: Time) {
        given.insert(index)
        for fingerprint in issuing where handedOut[fingerprint] == nil { handedOut[fingerprint] = time.elapsed }
    }

    /// The recorded rejection of `fingerprint` if it applies at this point of the run: its cause's
    /// recorded answer was given in this run, or, for expiry, it has expired on the run's clock
    /// (`ReplayClock.hasExpired`); nil otherwise.
    func rejection(of fingerprint: String, in history: CredentialHistory, at time: Time) -> CredentialRejection? {
        guard let rejection = history.rejection(of: fingerprint) else { return nil }
        if let after = rejection.after { return given.contains(after) ? rejection : nil }
        guard let lifetime = rejection.lifetime else { return nil }
        let age = handedOut[fingerprint].map { time.elapsed - $0 }
        let expired = clock.hasExpired(
            lifetime: lifetime, age: age, recordedExpiry: rejection.recordedExpiry, now: time.now)
        return expired ? rejection : nil
    }
}
