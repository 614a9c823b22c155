import FaultlineBackend
import FaultlineContract
import FaultlineTestProxy
import Foundation

/// One race the reference clients are driven through: the rules that stage it and the script the
/// client app follows. The script never sleeps to order events; holds and their release events do.
public enum DemoScenario: String, Sendable, CaseIterable {
    /// Three screens call the API at once with an expired token.
    case tokenRace = "token-race"
    /// A 401 for the old token arrives after the refresh finished.
    case late401 = "late-401"
    /// A request keeps being refused after its retry.
    case alwaysRejected = "always-rejected"
    /// The user logs out while a request's 401 is on its way.
    case logoutRace = "logout-race"
    /// Two accounts signed in side by side.
    case twoAccounts = "two-accounts"
    /// A response that arrives after logout sets the old session cookie again.
    case lateSetCookie = "late-set-cookie"
    /// download → convert → write → complete, with a failed download and a cancelled job.
    case pipeline
    /// A POST whose first attempt meets an expired token.
    case noteRetry = "note-retry"
    /// A refresh whose response arrives after the user logged out.
    case lateRefresh = "late-refresh"
    /// A request answered 429 with `Retry-After: 1`.
    case rateLimited = "rate-limited"

    /// The scenario's rule files (the auth profile is always added).
    var ruleFiles: [String: String] {
        switch self {
        case .tokenRace: return ["token-race.json5": DemoRules.tokenRace]
        case .late401: return ["late-401.json5": DemoRules.late401]
        case .alwaysRejected: return ["always-rejected.json5": DemoRules.alwaysRejected]
        case .logoutRace: return ["logout-race.json5": DemoRules.logoutRace]
        case .lateSetCookie: return ["late-set-cookie.json5": DemoRules.lateSetCookie]
        case .pipeline: return ["failed-download.json5": DemoRules.failedDownload]
        case .lateRefresh: return ["late-refresh.json5": DemoRules.lateRefresh]
        case .rateLimited: return ["rate-limited.json5": DemoRules.rateLimited]
        case .twoAccounts, .noteRetry: return [:]
        }
    }

    /// One sentence for the demo's output.
    public var summary: String {
        switch self {
        case .tokenRace: return "three concurrent requests with an expired token"
        case .late401: return "a 401 for the old token arriving after the refresh"
        case .alwaysRejected: return "a request refused again after its retry"
        case .logoutRace: return "a logout while a 401 is on its way"
        case .twoAccounts: return "two accounts signed in side by side"
        case .lateSetCookie: return "an old session's Set-Cookie arriving after logout"
        case .pipeline: return "a job pipeline with a failed download and a cancelled job"
        case .noteRetry: return "a POST retried after its token expired"
        case .lateRefresh: return "a refresh answered after the user logged out"
        case .rateLimited: return "a request answered 429 with Retry-After: 1"
        }
    }

    /// Runs one operation of the client app. Its failures (a refused refresh, a logged-out
    /// session) are the app's business and show in the trace; the script carries on.
    func attempt<T: Sendable>(_ operation: () async throws -> T) async {
        _ = try? await operation()
    }

    /// Plays the scenario with `client` against the proxy and backend. Only the proxy's own
    /// failures (a hold that never comes) end it with an error.
    func play(_ client: ReferenceClient, proxy: TestProxy, backend: ReferenceBackend?) async throws {
        switch self {
        case .tokenRace:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()  // a replay has the backend's 401s recorded
            async let messages: Void = attempt { try await ann.call("GET", "/v1/messages") }
            async let avatar: Void = attempt { try await ann.call("GET", "/v1/avatar") }
            async let count: Void = attempt { try await ann.call("GET", "/v1/count") }
            _ = await (messages, avatar, count)
        case .late401:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()  // a replay has the backend's 401s recorded
            async let messages: Void = attempt { try await ann.call("GET", "/v1/messages") }
            async let avatar: Void = attempt { try await ann.call("GET", "/v1/avatar") }
            _ = await (messages, avatar)
        case .alwaysRejected:
            let ann = try await client.signIn("ann")
            await attempt { try await ann.call("GET", "/v1/count") }
        case .logoutRace:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()  // a replay has the backend's 401s recorded
            async let messages: Void = attempt { try await ann.call("GET", "/v1/messages") }
            _ = try await proxy.waitForHold("401-after-logout")
            await attempt { try await ann.logout() }
            await messages  // a correct client gives up with `loggedOut`
        case .twoAccounts:
            let ann = try await client.signIn("ann")
            let bob = try await client.signIn("bob")
            await attempt { try await ann.call("GET", "/v1/me") }
            await attempt { try await bob.call("GET", "/v1/me") }
        case .lateSetCookie:
            let ann = try await client.signIn("ann")
            async let messages: Void = attempt { try await ann.cookieCall("/v1/messages") }
            let late = try await proxy.waitForHold("late-response")
            await attempt { try await ann.logout() }
            late.release()
            await messages  // a correct client dropped this account's stack: the answer is dropped
            await attempt { try await ann.cookieCall("/v1/messages") }
        case .pipeline:
            let ann = try await client.signIn("ann")
            await attempt { try await ann.runJob() }
            let cancellation = JobCancellation()
            await attempt {
                try await ann.runJob(cancellation: cancellation) { job in
                    proxy.mark("cancel job=\(job)")
                    cancellation.cancel()
                }
            }
        case .noteRetry:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()  // a replay has the backend's 401s recorded
            await attempt { try await ann.call("POST", "/v1/notes", json: Data(#"{"text":"buy milk"}"#.utf8)) }
        case .lateRefresh:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()  // a replay has the backend's 401s recorded
            async let messages: Void = attempt { try await ann.call("GET", "/v1/messages") }
            _ = try await proxy.waitForHold("late-refresh")
            await attempt { try await ann.logout() }  // its forwarding releases the refresh response
            await messages  // a correct client revokes the late tokens (RFC 7009) and gives up
            await attempt { try await ann.call("GET", "/v1/me") }
        case .rateLimited:
            let ann = try await client.signIn("ann")
            await attempt { try await ann.call("GET", "/v1/count") }
        }
    }
}
