/// What a retry of a failed non-idempotent request lost of what made it safe to send again
/// (`replay-safe-retry`): its body, or the identity header the attempt carried.
///
/// A server can tell a retry from a new operation only by its body or by its idempotency key
/// (the IETF's draft-ietf-httpapi-idempotency-key-header): a retry that keeps neither is processed
/// as something the client never meant.
struct RetryLapse: Sendable, Equatable {
    enum Body: Sendable, Equatable {
        /// The same body as the attempt's.
        case kept
        /// No bytes where the attempt had some.
        case emptied
        /// A proper prefix of the attempt's body.
        case truncated
    }

    enum Key: Sendable, Equatable {
        /// Neither attempt carried one.
        case absent
        /// The attempt carried one and the retry does not.
        case dropped
        /// The retry carries another value.
        case changed
    }

    let body: Body
    let key: Key

    /// The lapse of a later attempt, or nil when it is safe (it keeps the attempt's key, or adds
    /// one, or keeps the body of an unkeyed attempt) or is not a retry at all (a different or
    /// unknown body: a new operation, which this clause does not judge).
    init?(originalKey: String?, retryKey: String?, body relation: AttemptBody.Relation) {
        if let retryKey, originalKey == nil || originalKey == retryKey { return nil }
        switch relation {
        case .same: body = .kept
        case .empty: body = .emptied
        case .truncated: body = .truncated
        case .different, .unknown: return nil
        }
        key = originalKey == nil ? .absent : retryKey == nil ? .dropped : .changed
        if body == .kept && key == .absent { return nil }
    }

    /// `empty-body`, `dropped-key`, `truncated-body+changed-key`: for the violation's details.
    var code: String {
        let parts: [String?] = [
            body == .emptied ? "empty-body" : body == .truncated ? "truncated-body" : nil,
            key == .dropped ? "dropped-key" : key == .changed ? "changed-key" : nil,
        ]
        return parts.compactMap { $0 }.joined(separator: "+")
    }

    /// `with an empty body and no Idempotency-Key header`, `with the same body but without the
    /// Idempotency-Key the attempt carried`: exactly what differs from the attempt.
    func sentence(retryLength: Int64?, originalLength: Int64, identityHeader: String?) -> String {
        let header = identityHeader ?? "idempotency key"
        let bodyPart: String =
            switch body {
            case .kept: "with the same body"
            case .emptied: "with an empty body"
            case .truncated:
                "with a truncated body (\(retryLength.map(String.init) ?? "fewer") of \(originalLength) bytes)"
            }
        switch key {
        case .absent: return "\(bodyPart) and no \(identityHeader.map { "\($0) header" } ?? header)"
        case .dropped: return "\(bodyPart) \(body == .kept ? "but" : "and") without the \(header) the attempt carried"
        case .changed: return "\(bodyPart) \(body == .kept ? "but" : "and") another \(header)"
        }
    }

    /// The offending witness's note: `with an empty body`, `without its Idempotency-Key`.
    func note(identityHeader: String?) -> String {
        let header = identityHeader ?? "idempotency key"
        switch (body, key) {
        case (.emptied, _): return "with an empty body"
        case (.truncated, _): return "with a truncated body"
        case (.kept, .changed): return "with another \(header)"
        case (.kept, _): return "without its \(header)"
        }
    }
}
