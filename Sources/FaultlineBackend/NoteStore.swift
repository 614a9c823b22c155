import FaultlineCore

/// Notes created by `POST /v1/notes`, and the `Idempotency-Key` bookkeeping that makes a retried
/// creation answer the first result instead of creating a second note
/// (draft-ietf-httpapi-idempotency-key-header §2).
///
/// Keys are scoped per account, so two accounts cannot collide. A key presented again with a
/// different body is a client bug (§2.7 of the draft answers 422): the note is not created.
/// A plain value; `BackendService` keeps it behind its lock.
struct NoteStore: Sendable {
    struct Note: Equatable, Sendable {
        let id: Int
        let account: String
        let length: Int
        let checksum: String
    }

    enum Outcome: Equatable, Sendable {
        case created(Note)
        /// The key was seen with the same body: the first note, not created again.
        case replayed(Note)
        /// The key was seen with another body.
        case keyReusedWithOtherBody
    }

    private struct KeyScope: Hashable, Sendable {
        let account: String
        let key: String
    }

    private struct Remembered: Sendable {
        let fingerprint: UInt64
        let length: Int
        let note: Note
    }

    private(set) var noteCount = 0
    private(set) var replayCount = 0
    private var remembered: [KeyScope: Remembered] = [:]

    /// Creates a note for `body`, unless `idempotencyKey` was already used by `account`.
    mutating func create(account: String, body: [UInt8], idempotencyKey: String?) -> Outcome {
        let fingerprint = FNV1a.hash(body)
        if let idempotencyKey, let earlier = remembered[KeyScope(account: account, key: idempotencyKey)] {
            guard earlier.fingerprint == fingerprint, earlier.length == body.count else {
                return .keyReusedWithOtherBody
            }
            replayCount += 1
            return .replayed(earlier.note)
        }
        noteCount += 1
        let note = Note(id: noteCount, account: account, length: body.count, checksum: "fnv1a64:" + FNV1a.hex(body))
        if let idempotencyKey {
            remembered[KeyScope(account: account, key: idempotencyKey)] = Remembered(
                fingerprint: fingerprint, length: body.count, note: note)
        }
        return .created(note)
    }
}
