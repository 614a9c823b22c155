public import FaultlineCapture
import FaultlineCore

/// Which recorded requests a replay sends, in which order, on which connection, when, and after
/// which others: the schedule, worked out from the capture alone.
///
/// - **Which**: every exchange that went upstream (`upstreamRequest`), copies made by `duplicate`
///   rules left out (`duplicateOf`), in recorded order; each is numbered `#1`, `#2`, ...
/// - **Lanes**: requests that shared a recorded client connection form one lane, replayed in
///   order on one connection; every lane runs beside the others, as the connections did.
/// - **When**: a request starts no earlier than its recorded offset from the first request (when
///   it went upstream), divided by the speed.
/// - **After which**: a request waits for the live answers it depends on: the one that issued
///   a credential it presents, and the credential changes of its session it followed or preceded
///   on other connections (`ReplayDependencies`).
public struct ReplayPlan: Sendable {
    public struct Step: Sendable {
        /// The request's number in the report, from 1.
        public let number: Int
        public let exchange: CapturedExchange
        /// The request as it went upstream.
        public let request: CapturedRequest
        /// The lane's position in `ReplayPlan.lanes`.
        public let lane: Int
        /// When it went upstream, after the first request.
        public let recordedOffset: Duration
        /// The steps (by number) whose live answers this request waits for (`ReplayDependencies`).
        public let dependencies: [Int]
        /// The credentials its recorded answer issued (`CredentialSite.sites`).
        public let issuedCredentials: [CredentialSite]
    }

    public let steps: [Step]
    /// Step numbers per lane, in recorded order; lanes ordered by their first step.
    public let lanes: [[Int]]
    /// From the first request going upstream to the last answer ending.
    public let recordedSpan: Duration

    /// The plan for `capture`. `credentials` says how its secrets are spelled (and the values
    /// the user supplied, which no exchange needs to issue).
    public init(capture: Capture, credentials: CredentialMap) {
        let exchanges = capture.exchanges.filter { $0.upstreamRequest != nil && $0.duplicateOf == nil }
        let origin = exchanges.map(\.startMoment.monoNanoseconds).min() ?? 0
        var laneOfConnection: [Int64: Int] = [:]
        var lanes: [[Int]] = []
        var dependencies = ReplayDependencies(credentials: credentials)
        var steps: [Step] = []
        for (position, exchange) in exchanges.enumerated() {
            let number = position + 1
            let lane: Int
            if let connection = exchange.connection, let known = laneOfConnection[connection] {
                lane = known
            } else {
                lane = lanes.count
                lanes.append([])
                if let connection = exchange.connection { laneOfConnection[connection] = lane }
            }
            lanes[lane].append(number)
            let request = exchange.upstreamRequest!
            let issued =
                exchange.response.map {
                    CredentialSite.sites(headers: $0.headers, body: $0.body?.bytes ?? [], learnableBy: credentials)
                } ?? []
            steps.append(
                Step(
                    number: number, exchange: exchange, request: request, lane: lane,
                    recordedOffset: .nanoseconds(Int64(exchange.startMoment.monoNanoseconds - origin)),
                    dependencies: dependencies.add(exchange, request: request, issued: issued),
                    issuedCredentials: issued))
        }
        self.steps = steps
        self.lanes = lanes
        let end = exchanges.map(\.endMoment.monoNanoseconds).max() ?? origin
        recordedSpan = .nanoseconds(Int64(end > origin ? end - origin : 0))
    }

    /// The step numbered `number`.
    public func step(_ number: Int) -> Step { steps[number - 1] }

    /// `offset` at `speed`: 1 as recorded, 2 twice as fast, 0 as fast as possible.
    public static func scaled(_ offset: Duration, speed: Double) -> Duration {
        guard speed > 0 else { return .zero }
        return .seconds(fractional: offset.inSeconds / speed)
    }
}

extension CapturedExchange {
    /// When the request went upstream (when it arrived, for a capture that says nothing more).
    var startMoment: Moment { forwarded ?? received }
    /// When the answer ended: delivered to the client, or at least received.
    var endMoment: Moment { answerEnd ?? startMoment }
}

extension ReplayPlan {
    /// Whether some request of the plan presents the recorded credential `recorded` (to warn
    /// about a `--secret` that matches nothing).
    public func presents(_ recorded: String) -> Bool {
        steps.contains { step in
            CredentialMap.occurrences(of: [recorded], in: step.request.searchableBytes, findsPseudonyms: false).contains
            {
                $0.recorded == recorded
            }
        }
    }
}
