import FaultlineCore
import Synchronization

/// The web UI's one-time tickets and the sessions they were exchanged for.
///
/// `faultline ui` asks for a ticket with the bearer token and prints a URL that carries it; the
/// browser's first request trades it for a session cookie. A ticket works once and for
/// `ticketLifetime`, so a URL left in a terminal's scroll-back or a shell history grants nothing
/// later. Sessions last as long as the proxy runs; the oldest goes when there are
/// `maximumSessions`. Every comparison runs in constant time (`ControlToken.matches`).
final class UISessions: Sendable {
    static let ticketLifetime: Duration = .seconds(300)
    static let maximumSessions = 32
    static let maximumTickets = 32

    private struct State {
        var tickets: [(value: String, expires: MonotonicInstant)] = []
        var sessions: [String] = []
    }

    private let state = Mutex(State())

    /// A fresh ticket (64 hex digits); the oldest unspent one goes when there are `maximumTickets`.
    func issueTicket(now: MonotonicInstant = .now()) throws(ServerError) -> String {
        let ticket = try ControlToken.generate()
        state.withLock { state in
            state.tickets.removeAll { $0.expires.nanoseconds <= now.nanoseconds }
            if state.tickets.count >= Self.maximumTickets { state.tickets.removeFirst() }
            state.tickets.append((ticket, now.advanced(by: Self.ticketLifetime)))
        }
        return ticket
    }

    /// Spends `ticket` and returns the new session's cookie value; nil when the ticket is unknown,
    /// spent or expired.
    func redeem(_ ticket: some StringProtocol, now: MonotonicInstant = .now()) throws(ServerError) -> String? {
        let session = try ControlToken.generate()
        return state.withLock { state -> String? in
            guard let index = state.tickets.firstIndex(where: { ControlToken.matches(ticket, $0.value) }) else {
                return nil
            }
            let spent = state.tickets.remove(at: index)
            guard now.nanoseconds < spent.expires.nanoseconds else { return nil }
            if state.sessions.count >= Self.maximumSessions { state.sessions.removeFirst() }
            state.sessions.append(session)
            return session
        }
    }

    /// True when `cookie` is a live session's.
    func isSession(_ cookie: some StringProtocol) -> Bool {
        state.withLock { state in
            // Every session is compared, so the time does not tell which one was closest.
            state.sessions.reduce(false) { found, session in ControlToken.matches(cookie, session) || found }
        }
    }
}
