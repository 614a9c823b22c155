import FaultlineCore
import Foundation
import Synchronization

/// One signed-in account's tokens, coordinated the way the token-refresh article recommends:
/// one shared refresh in flight, the current token compared with the rejected one before
/// refreshing, and a generation checked after every await so a logout wins over a late refresh.
/// Each `ClientFlaws` member switches one of those safeguards off.
actor AuthSession {
    enum Failure: Error, Equatable {
        /// The account logged out while this work was waiting.
        case loggedOut
        /// The refresh was refused; the user must sign in again.
        case refreshRefused(Int)
    }

    let flaws: ClientFlaws
    /// The account's HTTP stack at the time of each call (logout swaps it for a fresh one).
    private let stack: @Sendable () -> DemoHTTPClient
    private(set) var accessToken: String?
    private(set) var refreshToken: String?
    /// Bumped by logout; work that started under an older generation must not touch the tokens.
    private(set) var generation = 0
    private var refreshInFlight: Task<(access: String, refresh: String), any Error>?
    /// The refresh that was in flight when the account logged out (`settleAbandonedRefresh`).
    private var abandonedRefresh: Task<(access: String, refresh: String), any Error>?
    /// Requests that passed their generation check and are not yet on their way (`beginSend`),
    /// and a logout waiting for them to be out before its own request goes.
    private var sending = 0
    private var logoutWaiting: CheckedContinuation<Void, Never>?

    init(flaws: ClientFlaws, stack: @escaping @Sendable () -> DemoHTTPClient) {
        self.stack = stack
        self.flaws = flaws
    }

    /// Signs in with the password grant (RFC 6749 §4.3).
    func login(_ username: String) async throws {
        let response = try await stack().send(
            "POST", "/oauth/token", form: ["grant_type": "password", "username": username, "password": "demo"])
        guard response.status == 200, let json = response.json, let access = json["access_token"]?.stringValue,
            let refresh = json["refresh_token"]?.stringValue
        else { throw Failure.refreshRefused(response.status) }
        accessToken = access
        refreshToken = refresh
    }

    /// Before a request of this session is sent (a call, its retry after a refresh or a
    /// `Retry-After`, a cookie call): throws `loggedOut` when the session signed out since
    /// `generation` (the article's rule after every await), else counts the request as being sent
    /// until its ticket ends, when it is on its way: a logout starting meanwhile sends its own
    /// request only after it. Checked and sent is then one step for the logout, and its boundary
    /// never falls between the check and the wire (exploration found the gap: under load, a call
    /// that had read its token before the logout reached the proxy after it). The flawed clients
    /// without a generation check, and those that adopt late tokens, carry on unchecked and
    /// uncounted.
    func beginSend(_ generation: Int) throws -> SendTicket {
        guard !flaws.contains(.noGenerationCheck), !flaws.contains(.adoptLateTokens) else { return SendTicket(nil) }
        guard generation == self.generation else { throw Failure.loggedOut }
        sending += 1
        return SendTicket(self)
    }

    /// A request counted by `beginSend` is on its way (or failed).
    func endSend() {
        sending -= 1
        if sending == 0, let logoutWaiting {
            self.logoutWaiting = nil
            logoutWaiting.resume()
        }
    }

    /// A token to retry with after `rejected` got a 401: the current one if another request has
    /// already refreshed, the shared in-flight refresh's result, or a new refresh.
    /// `refreshAtStart` is the refresh token when the request was sent; only the flawed client
    /// without single flight refreshes with it (each request with the credentials it started with).
    func token(afterRejectionOf rejected: String?, startedIn generation: Int, refreshAtStart: String?) async throws
        -> String
    {
        guard flaws.contains(.noGenerationCheck) || generation == self.generation else { throw Failure.loggedOut }
        let checksCurrentToken = !flaws.contains(.refreshOnStale401) && !flaws.contains(.noSingleFlight)
        if checksCurrentToken, let accessToken, accessToken != rejected { return accessToken }
        if !flaws.contains(.noSingleFlight), let refreshInFlight {
            return try await finish(refreshInFlight, startedIn: generation)
        }
        guard let refreshToken = flaws.contains(.noSingleFlight) ? refreshAtStart : refreshToken else {
            throw Failure.loggedOut
        }
        let http = stack()
        // The refresh is counted as being sent like any request of the session (`beginSend`).
        let ticket = try beginSend(generation)
        let task = Task {
            defer { ticket.end() }
            return try await Self.refresh(refreshToken, http: http, written: ticket.end)
        }
        if !flaws.contains(.noSingleFlight) { refreshInFlight = task }
        return try await finish(task, startedIn: generation)
    }

    private func finish(
        _ task: Task<(access: String, refresh: String), any Error>, startedIn generation: Int
    ) async throws -> String {
        let tokens: (access: String, refresh: String)
        do {
            tokens = try await task.value
        } catch {
            if refreshInFlight == task { refreshInFlight = nil }
            throw error
        }
        if refreshInFlight == task { refreshInFlight = nil }
        // The article's rule: after the await, check the generation before touching anything. The
        // tokens of a refresh that lost the race against logout are never stored: they are handed
        // back to the server (RFC 7009), so they die even if the logout did not reach their family.
        guard flaws.contains(.noGenerationCheck) || flaws.contains(.adoptLateTokens) || generation == self.generation
        else {
            await revoke(tokens)
            throw Failure.loggedOut
        }
        accessToken = tokens.access
        refreshToken = tokens.refresh
        return tokens.access
    }

    private static func refresh(_ token: String, http: DemoHTTPClient, written: @escaping @Sendable () -> Void)
        async throws -> (access: String, refresh: String)
    {
        let response = try await http.send(
            "POST", "/oauth/token", form: ["grant_type": "refresh_token", "refresh_token": token], written: written)
        guard response.status == 200, let json = response.json, let access = json["access_token"]?.stringValue,
            let refresh = json["refresh_token"]?.stringValue
        else { throw Failure.refreshRefused(response.status) }
        return (access, refresh)
    }

    /// Revokes a pair the app will not use (RFC 7009 §2.1: one token per request, the hint saying
    /// which kind), refresh token first since revoking it takes the access tokens of its grant
    /// with it. Failures are ignored: the session is over either way. The requests go on a
    /// client of their own, with no cookie store: the account's stack is being torn down by the
    /// logout that made these tokens late, and a revocation needs nothing but the token.
    private func revoke(_ tokens: (access: String, refresh: String)) async {
        let http = stack().fresh()
        for (token, hint) in [(tokens.refresh, "refresh_token"), (tokens.access, "access_token")] {
            _ = try? await http.send("POST", "/oauth/revoke", form: ["token": token, "token_type_hint": hint])
        }
    }

    /// Signs out: bumps the generation first, so waiting work sees it, then tells the server.
    /// (The flawed client only drops the access token and relies on nothing else.)
    func logout() async throws {
        generation += 1
        let token = accessToken
        accessToken = nil
        if !flaws.contains(.noGenerationCheck) {
            refreshToken = nil
            abandonedRefresh = refreshInFlight
            refreshInFlight = nil
        }
        if sending > 0 { await withCheckedContinuation { logoutWaiting = $0 } }
        _ = try await stack().send("POST", "/logout", bearer: token)
    }

    /// Waits for a refresh that logout left in flight to get its answer: the tokens it carries
    /// are late and are handed back (RFC 7009) by the request that waits for them, which needs
    /// the answer, so the stack the refresh uses must not be torn down before it comes.
    func settleAbandonedRefresh() async {
        _ = try? await abandonedRefresh?.value
        abandonedRefresh = nil
    }
}

/// One request counted as being sent by `AuthSession.beginSend`: it stops counting once, when the
/// request is on its way or has failed, whichever is told first (a ticket from a flawed client
/// counts nothing).
final class SendTicket: Sendable {
    private let session: AuthSession?
    private let ended = Atomic<Bool>(false)

    init(_ session: AuthSession?) { self.session = session }

    /// Safe to call more than once, from any thread.
    @Sendable func end() {
        guard let session, !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { await session.endSend() }
    }
}
