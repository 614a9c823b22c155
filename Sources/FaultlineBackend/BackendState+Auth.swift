import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1

/// The token endpoint, token revocation, logout, and checking the credentials of business requests.
extension BackendState {
    // MARK: - POST /oauth/token

    /// RFC 6749 §4.3 (password) and §6 (refresh). Every answer carries `Cache-Control: no-store`
    /// and `Pragma: no-cache` (RFC 6749 §5.1); errors are 400 with an OAuth error code (§5.2).
    mutating func token(_ request: BackendRequest, now: MonotonicInstant) throws(BadRequest) -> BackendResponse {
        let form = try Self.oauthForm(request, endpoint: "the token endpoint")
        guard let grantType = form.parameter("grant_type") else { throw BadRequest("missing grant_type") }
        switch grantType {
        case "password":
            guard let account = form.parameter("username") else { throw BadRequest("missing username") }
            guard form.parameter("password") != nil else { throw BadRequest("missing password") }
            guard !configuration.lockedAccounts.contains(account) else {
                extra.rejectedLogins += 1
                return Self.tokenError("invalid_grant", "account \(account) is locked")
            }
            let grant = tokens.login(account: account, now: now)
            var response = Self.tokenResponse(grant)
            // RFC 6265 §4.1: the session cookie, for clients that use cookies instead of Bearer.
            response.headers.add(name: "Set-Cookie", value: "session=\(grant.sessionToken); Path=/; HttpOnly")
            return response
        case "refresh_token":
            guard let refreshToken = form.parameter("refresh_token") else { throw BadRequest("missing refresh_token") }
            switch tokens.refresh(refreshToken, now: now) {
            case .rotated(let grant):
                return Self.tokenResponse(grant)
            case .reuseDetected:
                return Self.tokenError(
                    "invalid_grant", "the refresh token was already used; its whole token family is now revoked")
            case .rejected(let reason):
                extra.rejectedRefreshes += 1
                return Self.tokenError("invalid_grant", "the refresh token is \(reason.rawValue)")
            }
        default:
            return Self.tokenError("unsupported_grant_type", "grant_type \(grantType) is not supported")
        }
    }

    // MARK: - POST /oauth/revoke

    /// RFC 7009 token revocation: `token` (required) and `token_type_hint` (optional, §2.1).
    /// Answers 200 with an empty body whether or not the token was valid (§2.2: an invalid token
    /// is no error, so a client cannot probe which tokens exist); 400 `invalid_request` without a
    /// token, `unsupported_token_type` for a hint this server does not know (§2.2.1).
    mutating func revoke(_ request: BackendRequest) throws(BadRequest) -> BackendResponse {
        let form = try Self.oauthForm(request, endpoint: "the revocation endpoint")
        guard let token = form.parameter("token") else { throw BadRequest("missing token") }
        if let hint = form.parameter("token_type_hint"), !["access_token", "refresh_token"].contains(hint) {
            return .error(
                400, "unsupported_token_type", "token_type_hint \(hint) is not supported", headers: Self.noStore)
        }
        extra.revocationRequests += 1
        _ = tokens.revoke(token: token)
        return BackendResponse(status: 200, headers: Self.noStore, body: [])
    }

    /// The form body of an OAuth endpoint (RFC 6749 §3.2: form-encoded, no repeated parameter).
    private static func oauthForm(_ request: BackendRequest, endpoint: String) throws(BadRequest) -> FormFields {
        if let type = request.mediaType, type != "application/x-www-form-urlencoded" {
            throw BadRequest("\(endpoint) takes application/x-www-form-urlencoded, not \(type)")
        }
        let form: FormFields
        do { form = try FormFields.decode(request.body) } catch { throw BadRequest("malformed form body: \(error)") }
        if let name = form.repeatedName { throw BadRequest("parameter \(name) appears more than once") }
        return form
    }

    private static let noStore: HTTPHeaders = [("Cache-Control", "no-store"), ("Pragma", "no-cache")]

    private static func tokenResponse(_ grant: TokenStore.Grant) -> BackendResponse {
        let body = JSON.object([
            "access_token": .string(grant.accessToken),
            "refresh_token": .string(grant.refreshToken),
            "token_type": .string("Bearer"),
            "expires_in": JSON.number(Int(grant.expiresIn.components.seconds)),
        ])
        return .json(200, body, headers: noStore)
    }

    private static func tokenError(_ code: String, _ description: String) -> BackendResponse {
        .error(400, code, description, headers: noStore)
    }

    // MARK: - POST /logout

    /// Revokes the family of the Bearer token or session cookie presented (any token the family
    /// ever had) and clears the cookie. Answers 204 even when nothing was live to revoke, as
    /// token revocation does (RFC 7009 §2.2): the client is logged out either way.
    mutating func logout(_ request: BackendRequest) throws(BadRequest) -> BackendResponse {
        let presented = [try request.bearerToken()].compactMap { $0 } + request.cookieValues("session")
        _ = tokens.logout(presenting: presented)
        // RFC 6265 §3.1: an expiry in the past (here Max-Age=0) removes the cookie.
        return .noContent(headers: [("Set-Cookie", "session=; Max-Age=0; Path=/")])
    }

    // MARK: - Credentials of business requests

    /// Who makes `request`: its Bearer token when it has one, else its session cookie. A 401
    /// response when neither is valid: `WWW-Authenticate: Bearer error="invalid_token"` for a
    /// refused credential, plain `Bearer` when none was presented (RFC 6750 §3, §3.1).
    mutating func authenticate(
        _ request: BackendRequest, now: MonotonicInstant
    ) throws(BadRequest) -> Result<TokenStore.Identity, AuthenticationFailure> {
        let bearer = try request.bearerToken()
        let sessions = request.cookieValues("session")
        var checks: [TokenStore.AccessCheck] = []
        if let bearer { checks.append(tokens.checkAccess(bearer, now: now)) }
        checks += sessions.map { tokens.checkSession($0) }
        guard let first = checks.first else {
            extra.unauthorized += 1
            return .failure(AuthenticationFailure(rejection: nil))
        }
        let identity: TokenStore.Identity
        switch first {
        case .rejected(let reason):
            extra.unauthorized += 1
            return .failure(AuthenticationFailure(rejection: reason))
        case .valid(let valid):
            identity = valid
        }
        // Account isolation: a second live credential of another family rode along.
        let mixed = checks.dropFirst().contains { check in
            if case .valid(let other) = check { return other.family != identity.family }
            return false
        }
        if mixed { extra.mixedCredentials += 1 }
        return .success(identity)
    }
}

/// Why a business request got 401; `response` is the answer.
struct AuthenticationFailure: Error, Sendable {
    /// Nil when the request carried no credential at all.
    let rejection: TokenStore.Rejection?

    var response: BackendResponse {
        guard let rejection else {
            return .error(
                401, "unauthorized", "no Bearer token or session cookie", headers: [("WWW-Authenticate", "Bearer")])
        }
        let description =
            switch rejection {
            case .unknown: "the credential is unknown"
            case .expired: "the access token expired"
            case .superseded: "the access token was replaced by a refresh"
            case .revoked: "the credential's token family was revoked"
            }
        return .error(
            401, "invalid_token", description, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
    }
}
