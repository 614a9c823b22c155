import FaultlineCore
import FaultlineTLS

/// The fresh values a replay hands out in place of recorded credentials, and the way back: each
/// recorded value gets one fresh value for the whole run (consistent per lineage, since a
/// lineage's credentials are distinct recorded values), and a request presenting a fresh value is
/// read as presenting the recorded one.
///
/// Fresh values are `flr` and 40 random base62 characters: valid wherever the recorded value was
/// (a cookie, a Bearer token, a query or form value, a JSON string), and found again in a request
/// by their prefix. A recorded JWT keeps its shape: its fresh value is the recorded header and
/// claims (with the times moved, `AnswerTimeShifter`), re-signed with the run's key for its `alg`
/// (`JWTSigner`, RFC 7515 §5.1), the header's `kid` naming that key, so a client that checks the
/// signature against the replay's JWKS accepts it. A JWT whose `alg` the run cannot sign (`none`,
/// an unknown one) or a mint without keys keeps the placeholder form: such a random value as the
/// signature part, which does not verify; `notes` says which happened. Not thread-safe:
/// `ReplaySource` guards it.
struct TokenMint {
    static let prefix: [UInt8] = Array("flr".utf8)
    static let randomLength = 40
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// The run's signing keys; nil mints every JWT in the placeholder form.
    let signer: JWTSigner?
    private var fresh: [String: String] = [:]
    private var recorded: [String: String] = [:]
    /// Fresh JWTs (`header.claims.flr…` or signed) → the recorded value each stands for.
    private var shaped: [String: String] = [:]
    /// The JWTs minted since the last `takeNotes`, for the trace: never a token or a key.
    private var notes: [Note] = []

    /// One minted JWT: its `alg` and the `kid` it was signed with, or nil when it kept the
    /// placeholder signature (an `alg` the run cannot sign).
    struct Note: Equatable {
        let alg: String
        let kid: String?
    }

    init(signer: JWTSigner? = nil) {
        self.signer = signer
    }

    /// The notes gathered since the last call, oldest first.
    mutating func takeNotes() -> [Note] {
        defer { notes = [] }
        return notes
    }

    /// The fresh value standing for `value` in this run, minted on first use. `signingInput`: a
    /// recorded JWT's `header.claims.` to put before the random part (the first use's stays for
    /// the run, as the fresh value does).
    mutating func fresh(for value: String, signingInput: String? = nil) -> String {
        if let known = fresh[value] { return known }
        let token = mint(for: value, signingInput: signingInput)
        fresh[value] = token
        return token
    }

    /// Another fresh value for `value` (a refresh the recording has no answer for issues new
    /// tokens, which stand for the recorded ones they replace); read back as `value`.
    mutating func nextGeneration(for value: String, signingInput: String? = nil) -> String {
        mint(for: value, signingInput: signingInput, distinct: true)
    }

    /// The fresh values in `text` this run handed out, with the recorded value each stands for.
    func presented(in text: [UInt8]) -> [(fresh: String, recorded: String)] {
        guard !recorded.isEmpty || !shaped.isEmpty else { return [] }
        let total = Self.prefix.count + Self.randomLength
        var found: [(String, String)] = []
        // Signed JWTs have no `flr` part to find: they are looked for whole.
        for (token, original) in shaped
        where recorded[String(token.suffix(total))] == nil && Self.contains(text, Array(token.utf8)) {
            found.append((token, original))
        }
        var index = 0
        while index + total <= text.count {
            if text[index] == Self.prefix[0], text[index + 1] == Self.prefix[1], text[index + 2] == Self.prefix[2] {
                let candidate = String(decoding: text[index..<(index + total)], as: UTF8.self)
                if let original = recorded[candidate] {
                    found.append((candidate, original))
                    index += total
                    continue
                }
            }
            index += 1
        }
        return found
    }

    private mutating func mint(for value: String, signingInput: String?, distinct: Bool = false) -> String {
        if let signingInput, let token = signed(signingInput, distinct: distinct) {
            shaped[token] = value
            return token
        }
        var bytes = Self.prefix
        var random = [UInt8](repeating: 0, count: Self.randomLength)
        Self.fillRandom(&random)
        // 62 does not divide 256, so reject the bytes that would bias the draw (256 - 256 % 62).
        var index = 0
        while bytes.count < Self.prefix.count + Self.randomLength {
            if index == random.count {
                Self.fillRandom(&random)
                index = 0
            }
            let byte = random[index]
            index += 1
            if byte < 248 { bytes.append(Self.alphabet[Int(byte % 62)]) }
        }
        let token = String(decoding: bytes, as: UTF8.self)
        recorded[token] = value
        guard let signingInput else { return token }
        shaped[signingInput + token] = value
        return signingInput + token
    }

    /// The recorded value a fresh one stands for; nil for a value this run never handed out.
    func recordedValue(for token: String) -> String? { recorded[token] }

    /// `text` with every fresh value replaced by the recorded one; nil when it holds none.
    func recordedText(_ text: [UInt8]) -> [UInt8]? {
        guard !recorded.isEmpty || !shaped.isEmpty else { return nil }
        // A fresh JWT goes whole first: its random part alone would leave its header and claims.
        var jwtsReplaced: [UInt8]?
        if !shaped.isEmpty {
            let replaced = CredentialSubstitution.replace(Array(shaped.keys), in: text) { shaped[$0] ?? $0 }
            if replaced != text { jwtsReplaced = replaced }
        }
        let text = jwtsReplaced ?? text
        let total = Self.prefix.count + Self.randomLength
        let tokensReplaced = text.replacingRuns(minimumLength: total) { index in
            guard text[index] == Self.prefix[0], text[index + 1] == Self.prefix[1], text[index + 2] == Self.prefix[2],
                let original = recorded[String(decoding: text[index..<(index + total)], as: UTF8.self)]
            else { return nil }
            return (total, original)
        }
        return tokensReplaced ?? jwtsReplaced
    }

    /// `header.claims.` (the moved claims) as a signed JWT: the recorded header with its `kid`
    /// set to the run key's (replaced in place, or added last), re-encoded, and the signature of
    /// `header.claims` (RFC 7515 §5.1 steps 5–8). Nil, noted, for an `alg` the run cannot sign.
    /// `distinct`: a new generation must differ from every token handed out, but HS* and RS*
    /// signatures are deterministic, so a repeat gets a random private header parameter
    /// (RFC 7515 §4.3), which verifiers ignore.
    private mutating func signed(_ signingInput: String, distinct: Bool) -> String? {
        let parts = signingInput.split(separator: ".", omittingEmptySubsequences: false)
        guard let signer, parts.count == 3, let header = JSONWebToken.decode(parts[0]).flatMap(JSONValue.parse),
            var members = header.members, let alg = header["alg"]?.stringValue
        else { return nil }
        guard let kid = signer.kid(for: alg) else {
            notes.append(Note(alg: alg, kid: nil))
            return nil
        }
        if let index = members.firstIndex(where: { $0.key == "kid" }) {
            members[index] = JSONMember(key: "kid", value: .string(kid))
        } else {
            members.append(JSONMember(key: "kid", value: .string(kid)))
        }
        for attempt in 0..<2 {
            if attempt == 1 {
                guard distinct else { break }
                var nonce = [UInt8](repeating: 0, count: 12)
                Self.fillRandom(&nonce)
                members.append(JSONMember(key: "flr_gen", value: .string(Base64.encoded(nonce, variant: .urlUnpadded))))
            }
            let input = Base64.encoded(JSONValue.object(members).jsonBytes(), variant: .urlUnpadded) + "." + parts[1]
            guard let signature = signer.sign(Array(input.utf8), alg: alg) else {
                notes.append(Note(alg: alg, kid: nil))
                return nil
            }
            let token = input + "." + Base64.encoded(signature, variant: .urlUnpadded)
            if distinct, attempt == 0, shaped[token] != nil { continue }
            notes.append(Note(alg: alg, kid: kid))
            return token
        }
        return nil
    }

    private static func contains(_ text: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= text.count else { return false }
        for start in 0...(text.count - needle.count) where text[start] == needle[0] {
            if text[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    private static func fillRandom(_ bytes: inout [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
    }
}
