import FaultlineCore

/// The fresh values a replay hands out in place of recorded credentials, and the way back: each
/// recorded value gets one fresh value for the whole run (consistent per lineage, since a
/// lineage's credentials are distinct recorded values), and a request presenting a fresh value is
/// read as presenting the recorded one.
///
/// Fresh values are `flr` and 40 random base62 characters: valid wherever the recorded value was
/// (a cookie, a Bearer token, a query or form value, a JSON string), and found again in a request
/// by their prefix. A recorded JWT keeps its shape: its fresh value is the recorded header and
/// claims (with the times moved, `AnswerTimeShifter`) and such a value as the signature part, so
/// a client that decodes the token reads its claims; the signature does not verify (re-signing
/// is the replay-as-issuer work). Not thread-safe: `ReplaySource` guards it.
struct TokenMint {
    static let prefix: [UInt8] = Array("flr".utf8)
    static let randomLength = 40
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    private var fresh: [String: String] = [:]
    private var recorded: [String: String] = [:]
    /// Fresh JWTs (`header.claims.flr…`) → the recorded value each stands for.
    private var shaped: [String: String] = [:]

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
        mint(for: value, signingInput: signingInput)
    }

    /// The fresh values in `text` this run handed out, with the recorded value each stands for.
    func presented(in text: [UInt8]) -> [(fresh: String, recorded: String)] {
        guard !recorded.isEmpty else { return [] }
        let total = Self.prefix.count + Self.randomLength
        var found: [(String, String)] = []
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

    private mutating func mint(for value: String, signingInput: String?) -> String {
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
        guard !recorded.isEmpty else { return nil }
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

    private static func fillRandom(_ bytes: inout [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
    }
}
