import FaultlineCore
import Foundation

/// What the lanes of a replay share: the session, and how many lanes are done, behind one lock
/// with a condition to wait on, so a lane can wait for the answer that issues its credentials
/// and the driver can wait for progress, each with a deadline.
///
/// `@unchecked Sendable`: `session`, `finishedLanes` and `version` are only touched while
/// `condition` is locked.
final class ReplayBoard: @unchecked Sendable {
    private let condition = NSCondition()
    private var session: ReplaySession
    private var finishedLanes = 0
    /// Bumped on every change, so a waiter can tell that something happened.
    private var version = 0

    init(session: ReplaySession) {
        self.session = session
    }

    /// Runs `body` on the session under the lock and wakes every waiter.
    @discardableResult
    func update<Result>(_ body: (inout ReplaySession) -> Result) -> Result {
        condition.lock()
        defer {
            version += 1
            condition.broadcast()
            condition.unlock()
        }
        return body(&session)
    }

    /// A lane has sent its last request and closed its connection.
    func laneFinished() {
        update { _ in finishedLanes += 1 }
    }

    /// A copy of the session, and how many lanes are done.
    func snapshot() -> (session: ReplaySession, finishedLanes: Int, version: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (session, finishedLanes, version)
    }

    /// Blocks until `ready(session)` holds or `deadline` passes; returns whether it holds.
    @discardableResult
    func wait(until deadline: MonotonicInstant, for ready: (ReplaySession) -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !ready(session) {
            let remaining = MonotonicInstant.now().duration(to: deadline)
            guard remaining > .zero else { return false }
            // NSCondition waits on the wall clock; the deadline stays on the monotonic one, so a
            // clock step only shortens or lengthens one round of this loop.
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.inSeconds))
        }
        return true
    }

    /// Blocks until anything changes after `version`, or `deadline` passes.
    func waitForChange(after version: Int, until deadline: MonotonicInstant) {
        condition.lock()
        defer { condition.unlock() }
        while self.version == version {
            let remaining = MonotonicInstant.now().duration(to: deadline)
            guard remaining > .zero else { return }
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.inSeconds))
        }
    }
}
