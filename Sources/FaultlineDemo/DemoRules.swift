/// The rule files the demo and the mutation table run with, as text, so the binary needs no
/// files: the auth profile of the reference backend and one small scenario per race.
/// Tests/FaultlineDemoTests/DemoRulesTests.swift keeps the profile equal to Rules/auth-profile.json5.
enum DemoRules {
    /// The reference backend's auth profile (`faultline backend`).
    static let profile = """
        // Auth profile of the reference backend (faultline backend).
        {
          login: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "password" } } },
          refresh: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "refresh_token" } } },
          logout: { method: "POST", path: "/logout" },
          revoke: { method: "POST", path: "/oauth/revoke" },
          roles: { callback: { method: "POST", path: "/jobs/*/complete" } },
          credentials: {
            request: [
              { header: "Authorization", scheme: "Bearer", kind: "access" },
              { cookie: "session", kind: "session" },
              { form: "refresh_token", kind: "refresh" },
            ],
            response: [
              { json: "/access_token", kind: "access" },
              { json: "/refresh_token", kind: "refresh" },
              { setCookie: "session", kind: "session" },
            ],
          },
          idempotencyHeader: "Idempotency-Key",
        }
        """

    /// Three requests with an expired token are all on the wire before any 401 reaches the client.
    static let tokenRace = """
        // The first two 401s wait for the third, so the client hears of the expired token only
        // once all three requests were sent with it: a client without single flight then
        // refreshes once per request, whatever the pace of the machine.
        {
          rules: [
            {
              name: "first-401s", phase: "response", match: { path: "/v1/*", status: 401 }, when: { nth: [1, 2] },
              actions: [{ hold: { name: "token-race", release: { on: "rule:third-401" }, timeout: 10 } }],
            },
            { name: "third-401", phase: "response", match: { path: "/v1/*", status: 401 }, when: { nth: 3 } },
          ],
        }
        """

    /// A 401 that answers an old token arrives only after the refresh it raced is over.
    static let late401 = """
        // The avatar's 401 (for the expired token) reaches the client only once another request
        // has been retried after the refresh (rule "retried" fires on it): a correct client then
        // retries with the new token and starts no second refresh.
        {
          rules: [
            {
              name: "late-401", phase: "response",
              match: { path: "/v1/avatar", status: 401 }, when: { times: 1 },
              actions: [{ hold: { name: "late-401", release: { on: "rule:retried" }, timeout: 10 } }],
            },
            {
              name: "retried", match: { path: "/v1/messages" }, when: { after: "refresh.delivered", times: 1 },
            },
          ],
        }
        """

    /// Every call to /v1/count is refused: a correct client surfaces the second 401.
    static let alwaysRejected = """
        // /v1/count answers 401 whatever the token: one refresh and one retry, then give up.
        {
          rules: [{
            name: "count-always-401", match: { path: "/v1/count" },
            actions: [{ respond: { status: 401, json: { error: "invalid_token" } } }],
          }],
        }
        """

    /// A 401 held until the account's logout has been answered.
    static let logoutRace = """
        // The messages request's 401 arrives after the user logged out: the refresh it would
        // start must not happen (the generation changed while the request was in flight). The
        // hold ends when the logout's answer arrives, so the backend has revoked the session
        // before any refresh can reach it (on `logout.forwarded` a refresh could overtake the
        // logout at the backend and bring back fresh tokens).
        {
          rules: [{
            name: "401-after-logout", phase: "response",
            match: { path: "/v1/messages", status: 401 }, when: { times: 1 },
            actions: [{ hold: { name: "401-after-logout", release: { on: "logout.responded" }, timeout: 10 } }],
          }],
        }
        """

    /// A response held past logout that then sets the old session cookie again.
    static let lateSetCookie = """
        // The messages response is held (the demo releases it once the logout has completed),
        // then carries the old session's Set-Cookie: a correct client dropped that account's
        // cookie store at logout, so the late cookie is never used.
        {
          rules: [{
            name: "late-set-cookie", phase: "response",
            match: { path: "/v1/messages" }, when: { times: 1 },
            actions: [{ hold: { name: "late-response", timeout: 10 } }, { setCookie: { replay: "session" } }],
          }],
        }
        """

    /// The messages response carries the old session's Set-Cookie again, with no hold: under
    /// exploration, the scheduler decides whether it reaches the client after the logout.
    static let lateSetCookieExplored = """
        // The messages response carries the old session's Set-Cookie: when it reaches the client
        // after the logout, a correct client has dropped that account's cookie store already.
        {
          rules: [{
            name: "late-set-cookie", phase: "response",
            match: { path: "/v1/messages" }, when: { times: 1 },
            actions: [{ setCookie: { replay: "session" } }],
          }],
        }
        """

    /// A refresh response held until the account's logout has been sent.
    static let lateRefresh = """
        // The refresh response reaches the client only after the user logged out: the tokens it
        // carries arrive late. A correct client revokes them (RFC 7009) and never uses them.
        {
          rules: [{
            name: "late-refresh", phase: "response",
            match: { role: "refresh" }, when: { times: 1 },
            actions: [{ hold: { name: "late-refresh", release: { on: "logout.forwarded" }, timeout: 10 } }],
          }],
        }
        """

    /// The first download fails.
    /// The first call to /v1/count is refused for a second.
    static let rateLimited = """
        // /v1/count answers its first call 429 with Retry-After: 1: a correct client waits a
        // second before it asks again.
        {
          rules: [{
            name: "count-rate-limited", match: { path: "/v1/count" }, when: { times: 1 },
            actions: [{ rateLimit: 1 }],
          }],
        }
        """

    static let failedDownload = """
        // The first job's download fails: convert and write must be skipped, the callback still
        // reports the job once.
        {
          rules: [{
            name: "download-fails", match: { method: "POST", path: "/jobs/*/download" }, when: { times: 1 },
            actions: [{ respond: { status: 500, json: { error: "download_failed" } } }],
          }],
        }
        """

    /// The contract the demo checks: `Rules/contracts/session.contract.json5` without its
    /// comments (a test keeps the two equal).
    static let contract = """
        {
          description: "Token refresh, logout and account isolation, plus the download → convert → write → complete job pipeline.",

          clauses: {
            "single-flight-refresh": true,
            "no-stale-refresh": true,
            "bounded-retry": true,
            "logout-boundary": true,
            "account-isolation": true,
            "no-reactivation": true,
            "exactly-once": true,
            "dependency-respected": true,
            "replay-safe-retry": true,
            "retry-after-respected": true,
          },

          retryIdentity: { header: "Idempotency-Key" },

          steps: [
            { name: "download", match: { method: "POST", path: "/jobs/{job}/download" } },
            { name: "convert", match: { method: "POST", path: "/jobs/{job}/convert" } },
            { name: "write", match: { method: "POST", path: "/jobs/{job}/write" } },
          ],

          dependencies: [
            { step: "convert", needs: "download" },
            { step: "write", needs: "convert" },
          ],

          cancel: { mark: "cancel", key: "job" },
          commit: ["write"],

          callbacks: [
            { name: "completion", match: { method: "POST", path: "/jobs/{job}/complete" }, key: "job", after: "write" },
          ],
        }
        """
}
