import FaultlineCore

/// A recorded answer that is a JWK Set (RFC 7517 §5): a JSON object whose `keys` is an array of
/// JSON objects that each name a `kty` (§4.1, the one member a JWK must have). Whatever path
/// served it (`/.well-known/jwks.json`, or the `jwks_uri` of an OpenID Connect discovery
/// document), a replay that re-signs the tokens must answer it with its own public keys: the
/// recorded ones would verify none of the re-minted signatures. Sans-I/O: a body in, a verdict out.
struct RecordedKeySet {
    /// How many keys the recording had (for the trace: never the keys themselves).
    let count: Int

    /// Nil for a body that is no JWK Set: not JSON, no `keys` array, an empty one, or a member
    /// that is not a JWK.
    init?(_ body: [UInt8], contentType: String?) {
        // `application/jwk-set+json` (RFC 7517 §8.5.1) holds "json", as StructuredBody asks.
        guard case .json(let document) = StructuredBody(body, contentType: contentType),
            let keys = document["keys"]?.arrayValue, !keys.isEmpty,
            keys.allSatisfy({ $0["kty"]?.stringValue != nil })
        else { return nil }
        count = keys.count
    }
}
