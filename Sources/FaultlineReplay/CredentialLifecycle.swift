/// One recorded credential's state: issued, accepted, then rejected from a point on.
///
/// A rejection is the recorded server's word (a 401, or RFC 6749 §5.2's `invalid_grant`) only
/// while it lasts: a credential accepted again after a rejection (a 401 a fault rule made up, a
/// server that was briefly down) is not rejected from that point on, so it goes back to
/// accepted and its rejection is forgotten. Sans-I/O: inputs are recorded answers, outputs facts.
struct CredentialLifecycle: Sendable, Equatable {
    private enum State: Equatable {
        /// Handed out by a recorded answer, not presented yet.
        case issued
        /// Presented and accepted, most recently by the recorded exchange `last`.
        case accepted(last: Int)
        /// Rejected from `rejection.answer` on, every presentation since included.
        case rejected(CredentialRejection)
    }

    /// What an input changed.
    enum Fact: Equatable {
        case accepted
        /// Accepted after a rejection: the rejection did not last.
        case acceptedAgain
        case rejectedFrom(CredentialRejection)
        case stillRejected
    }

    private var state = State.issued

    /// A new credential, as its issuing answer hands it out.
    init() {}

    /// A recorded exchange presenting it was answered without a rejection.
    mutating func accepted(by index: Int) -> Fact {
        let wasRejected = rejection != nil
        state = .accepted(last: index)
        return wasRejected ? .acceptedAgain : .accepted
    }

    /// A recorded exchange presenting it was answered with a rejection; `rejection` says why and
    /// from when on. The first rejection stays: later ones are the same state going on.
    mutating func rejected(_ rejection: CredentialRejection) -> Fact {
        if case .rejected = state { return .stillRejected }
        state = .rejected(rejection)
        return .rejectedFrom(rejection)
    }

    /// The rejection in force after the recording, nil when the credential ended accepted.
    var rejection: CredentialRejection? {
        if case .rejected(let rejection) = state { return rejection }
        return nil
    }
}
