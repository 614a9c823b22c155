import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1

/// The business endpoints under `/v1/`: they need a valid access token or session cookie.
extension BackendState {
    /// Answers `GET /v1/messages|avatar|count|me` and `POST /v1/notes`, or 401.
    mutating func business(_ request: BackendRequest, now: MonotonicInstant) throws(BadRequest) -> BackendResponse {
        let identity: TokenStore.Identity
        switch try authenticate(request, now: now) {
        case .failure(let failure): return failure.response
        case .success(let who): identity = who
        }
        let account = identity.account
        switch request.route {
        case .messages:
            let messages = (1...3).map { number in
                JSON.object(["id": JSON.number(number), "text": .string("message \(number) for \(account)")])
            }
            return .json(200, JSON.object(["account": .string(account), "messages": .array(messages)]))
        case .avatar:
            // Large enough (16 KiB of data) that a transport fault can cut it mid-body.
            return .json(
                200,
                JSON.object([
                    "account": .string(account), "contentType": .string("image/png"),
                    "data": .string(Self.avatarData),
                ]))
        case .count:
            countCalls[account, default: 0] += 1
            return .json(200, JSON.object(["account": .string(account), "count": JSON.number(countCalls[account]!)]))
        case .me:
            return .json(200, JSON.object(["account": .string(account), "family": JSON.number(identity.family)]))
        case .notes:
            return try createNote(request, account: account)
        default:
            preconditionFailure("\(request.route) is not a business endpoint")
        }
    }

    /// `POST /v1/notes`: a JSON body becomes a note; the answer echoes its length and FNV-1a
    /// checksum, so a client can tell whether a retry carried the whole body.
    private mutating func createNote(_ request: BackendRequest, account: String) throws(BadRequest) -> BackendResponse {
        if let type = request.mediaType, type != "application/json" {
            throw BadRequest("notes take application/json, not \(type)")
        }
        guard JSON.parse(request.body) != nil else { throw BadRequest("the body is not a JSON document") }
        let keys = request.headers.values(name: "Idempotency-Key")
        guard keys.count <= 1 else { throw BadRequest("more than one Idempotency-Key field") }
        if let key = keys.first, key.isEmpty || key.utf8.count > 255 {
            throw BadRequest("an Idempotency-Key must have 1 to 255 characters")
        }
        switch notes.create(account: account, body: request.body, idempotencyKey: keys.first) {
        case .created(let note), .replayed(let note):
            return .json(
                201,
                JSON.object([
                    "id": JSON.number(note.id), "account": .string(note.account), "length": JSON.number(note.length),
                    "checksum": .string(note.checksum),
                ]))
        case .keyReusedWithOtherBody:
            // draft-ietf-httpapi-idempotency-key-header §2.7: same key, other payload.
            return .error(422, "idempotency_key_reused", "this Idempotency-Key was used with another body")
        }
    }

    /// 16 KiB of base64url-looking text, the same every time.
    private static let avatarData: String = {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var state: UInt32 = 42
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 * 1024)
        for _ in 0..<(16 * 1024) {
            // A linear congruential generator: deterministic filler, not randomness.
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(alphabet[Int(state >> 26)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }()
}
