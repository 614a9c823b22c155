import FaultlineCore
import FaultlineHTTP1
public import FaultlinePosix
public import FaultlineTLS
import Foundation

/// Runs a replay over blocking sockets: one thread per recorded connection (a lane, started
/// when its first request is due), each sending its requests in order on one connection, at
/// their recorded offsets divided by the speed, after the answers they depend on
/// (`ReplayPlan.Step.dependencies`); the calling thread starts the lanes, reports progress and
/// waits for the last one.
///
/// Every wait has a deadline: a request's connect, send and answer share `ReplayOptions.timeout`;
/// waiting for the answers it depends on gives up after the same time (the request then goes
/// with the credentials known); pacing waits until the request's start time.
public enum ReplayDriver {
    /// Replays `session` against `addresses` (TLS with `tls` when the target is https) and returns
    /// the report. `progress` gets a line now and then (`ReplayProgressMeter`), on this thread.
    public static func run(
        _ session: ReplaySession, capture: String, addresses: [SocketAddress], tls: TLSClientContext?,
        progress: (String) -> Void
    ) -> ReplayReport {
        let plan = session.plan
        let options = session.options
        let destination = ReplayConnection.Destination(
            addresses: addresses, tlsServerName: options.target.scheme == "https" ? options.target.host : nil, tls: tls)
        let board = ReplayBoard(session: session)
        let start = MonotonicInstant.now()
        func due(_ number: Int) -> MonotonicInstant {
            start.advanced(by: ReplayPlan.scaled(plan.step(number).recordedOffset, speed: options.speed))
        }
        let lanes = plan.lanes.sorted { due($0[0]) < due($1[0]) }
        var meter = ReplayProgressMeter(total: plan.steps.count)
        var started = 0
        while true {
            while started < lanes.count, due(lanes[started][0]) <= MonotonicInstant.now() {
                let lane = lanes[started]
                Thread.detachNewThread {
                    runLane(lane, board: board, destination: destination, start: start, options: options, plan: plan)
                }
                started += 1
            }
            let (current, finishedLanes, version) = board.snapshot()
            if started == lanes.count, finishedLanes == lanes.count { break }
            let (finished, differences) = current.progress
            if let line = meter.update(
                finished: finished, differences: differences, elapsed: start.duration(to: .now()))
            {
                progress(line)
            }
            var wake = MonotonicInstant.now().advanced(by: .seconds(1))
            if started < lanes.count { wake = min(wake, due(lanes[started][0])) }
            board.waitForChange(after: version, until: wake)
        }
        let span = start.duration(to: .now())
        return ReplayReport(session: board.snapshot().session, capture: capture, replaySpan: span)
    }

    /// One lane's requests, in order, on one connection.
    private static func runLane(
        _ numbers: [Int], board: ReplayBoard, destination: ReplayConnection.Destination, start: MonotonicInstant,
        options: ReplayOptions, plan: ReplayPlan
    ) {
        let connection = ReplayConnection(destination: destination)
        for number in numbers {
            let step = plan.step(number)
            board.wait(until: start.advanced(by: ReplayPlan.scaled(step.recordedOffset, speed: options.speed))) { _ in
                false
            }
            board.wait(until: MonotonicInstant.now().advanced(by: options.timeout)) { session in
                step.dependencies.allSatisfy { session.results[$0 - 1] != nil }
            }
            let request = board.update { $0.request(for: number) }
            let sentAt = MonotonicInstant.now()
            let answer: ReplaySession.Answer
            switch request {
            case .failure(let refusal):
                answer = .notSent(refusal.description)
            case .success(let request):
                do {
                    answer = .response(try connection.exchange(request, deadline: sentAt.advanced(by: options.timeout)))
                } catch {
                    answer = .failed(error.description)
                }
            }
            let duration = sentAt.duration(to: .now())
            board.update { $0.finish(number, with: answer, sentAfter: start.duration(to: sentAt), duration: duration) }
        }
        connection.close()
        board.laneFinished()
    }
}
