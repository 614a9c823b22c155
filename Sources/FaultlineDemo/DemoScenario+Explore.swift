import FaultlineBackend
import FaultlineTestProxy
import Foundation

/// The races as `faultline demo --explore` plays them: no rule that holds, delays or orders
/// anything. Rules that set up a situation stay (a forced status, a replayed Set-Cookie); the
/// order is the exploration scheduler's to choose.
///
/// Where the staged race waited for a hold before logging out, the explored one logs out on a
/// timer of its own: the logout then comes later than the response it must overtake, and only a
/// scheduler that waits for it (or that holds the response across other steps) finds the race.
extension DemoScenario {
    /// How long after its other work starts the explored client logs out: 40 ms, or three
    /// settle windows when those are longer, so that the logout still comes a few decisions into
    /// the work whatever pace the scheduler keeps.
    static func logoutAfter(settle: Duration) -> Duration { max(.milliseconds(40), settle * 3) }

    /// Whether the staged race depends on an ordering rule (so the flaw it shows is found only by
    /// an order the scheduler picks).
    public var dependsOnOrder: Bool {
        switch self {
        case .tokenRace, .late401, .logoutRace, .lateSetCookie, .lateRefresh: true
        case .alwaysRejected, .twoAccounts, .pipeline, .noteRetry, .rateLimited: false
        }
    }

    /// Whether the explored client sends something on a timer of its own (the logout), which only
    /// a wait lets overtake a pending response. The other races' clients send a request only
    /// when a response reaches them, so a wait would always see nothing arrive: they are explored
    /// with no waiting (max wait 0), as the README advises for such clients.
    public var sendsOnATimer: Bool {
        switch self {
        case .logoutRace, .lateSetCookie, .lateRefresh: true
        case .tokenRace, .late401, .alwaysRejected, .twoAccounts, .pipeline, .noteRetry, .rateLimited: false
        }
    }

    /// The rule files kept when explored.
    var exploreRuleFiles: [String: String] {
        switch self {
        case .alwaysRejected, .pipeline, .rateLimited: ruleFiles
        case .lateSetCookie: ["late-set-cookie.json5": DemoRules.lateSetCookieExplored]
        case .tokenRace, .late401, .logoutRace, .twoAccounts, .noteRetry, .lateRefresh: [:]
        }
    }

    /// Runs `work` and, `logoutAfter` into it, `account`'s logout: the user signing out on a
    /// timer of their own while the work is in flight. Returns when both are done.
    private static func loggingOut(
        _ account: ReferenceClient.Account, after delay: Duration, during work: @escaping @Sendable () async -> Void
    ) async {
        async let running: Void = work()
        try? await Task.sleep(for: delay)
        _ = try? await account.logout()
        await running
    }

    /// Plays the scenario for exploration: the staged script where it needs no hold, otherwise
    /// the same operations with the logout on a timer.
    func playExplored(
        _ client: ReferenceClient, proxy: TestProxy, backend: ReferenceBackend?, logoutAfter: Duration
    ) async throws {
        switch self {
        case .logoutRace:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()
            await Self.loggingOut(
                ann, after: logoutAfter, during: { await attempt { _ = try await ann.call("GET", "/v1/messages") } })
        case .lateSetCookie:
            let ann = try await client.signIn("ann")
            await Self.loggingOut(
                ann, after: logoutAfter, during: { await attempt { _ = try await ann.cookieCall("/v1/messages") } })
            await attempt { try await ann.cookieCall("/v1/messages") }
        case .lateRefresh:
            let ann = try await client.signIn("ann")
            backend?.expireAccessTokens()
            await Self.loggingOut(
                ann, after: logoutAfter, during: { await attempt { _ = try await ann.call("GET", "/v1/messages") } })
            await attempt { try await ann.call("GET", "/v1/me") }
        case .tokenRace, .late401, .alwaysRejected, .twoAccounts, .pipeline, .noteRetry, .rateLimited:
            try await play(client, proxy: proxy, backend: backend)
        }
    }
}
