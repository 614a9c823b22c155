public import FaultlineCapture
import FaultlineCore
import FaultlineHTTP1

/// Which recorded requests a replay sends, in which order, on which connection, when, and after
/// which others: the schedule, worked out from the capture alone.
///
/// - **Which**: every exchange that went upstream (`upstreamRequest`), copies made by `duplicate`
///   rules left out (`duplicateOf`), in recorded order; each is numbered `#1`, `#2`, ...
/// - **Lanes**: requests that shared a recorded client connection form one lane, replayed in
///   order on one connection; every lane runs beside the others, as the connections did.
/// - **When**: a request starts no earlier than its recorded offset from the first request (when
///   it went upstream), divided by the speed.
/// - **After which**: a request waits for the live answers it depends on (`dependencies`):
///   - the one that issued a credential it presents, so it carries the live value;
///   - across connections, the recorded order between a request and an exchange that changes
///     credentials (a login, refresh, logout or revocation, or an answer that sets cookies) when
///     both touch the same credential or lineage and one ended before the other began: a
///     request sent after a logout must not overtake it, nor a refresh a request it followed.
///   Requests that merely use the same session keep the concurrency they had. Every dependency
///   points to an earlier request in recorded order, so lanes never wait on each other in a circle.
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
        /// The steps (by number) whose live answers this request waits for (see the type's comment).
        public let dependencies: [Int]
        /// The credentials its recorded answer issued (`CredentialSite.sites`).
        public let issuedCredentials: [CredentialSite]
    }

    public let steps: [Step]
    /// Step numbers per lane, in recorded order; lanes ordered by their first step.
    public let lanes: [[Int]]
    /// From the first request going upstream to the last answer ending.
    public let recordedSpan: Duration
    /// The capture's body limit (`CaptureBodyLimit`), which tells a cut body from a whole one.
    public let bodyLimit: Int?

    /// The plan for `capture`. `credentials` says how its secrets are spelled (and the values
    /// the user supplied, which no exchange needs to issue); `bodyLimit` is the capture's.
    public init(capture: Capture, credentials: CredentialMap, bodyLimit: Int? = nil) {
        self.bodyLimit = bodyLimit
        let exchanges = capture.exchanges.filter { $0.upstreamRequest != nil && $0.duplicateOf == nil }
        let origin = exchanges.map(\.startMoment.monoNanoseconds).min() ?? 0
        var laneOfConnection: [Int64: Int] = [:]
        var lanes: [[Int]] = []
        var issuer: [String: Int] = [:]
        var steps: [Step] = []
        var touched: [Set<String>] = []
        var changesCredentials: [Bool] = []
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
            let presented = CredentialMap.occurrences(
                of: Set(issuer.keys), in: request.searchableBytes, findsPseudonyms: credentials.findsPseudonyms)
            var dependencies = Set(presented.compactMap { issuer[$0.recorded] })
            let issued =
                exchange.response.map {
                    CredentialSite.sites(headers: $0.headers, body: $0.body?.bytes ?? [], learnableBy: credentials)
                } ?? []
            for site in issued where credentials.liveValues[site.value] == nil { issuer[site.value] = number }
            var touches = Set(presented.map(\.recorded)).union(issued.map(\.value))
            if let lineage = exchange.lineage { touches.insert("lineage " + lineage) }
            let changes = exchange.changesCredentials
            for earlier in steps.indices where changes || changesCredentials[earlier] {
                guard let ended = steps[earlier].exchange.answerEnd, ended.seq < exchange.received.seq,
                    !touched[earlier].isDisjoint(with: touches)
                else { continue }
                dependencies.insert(earlier + 1)
            }
            touched.append(touches)
            changesCredentials.append(changes)
            steps.append(
                Step(
                    number: number, exchange: exchange, request: request, lane: lane,
                    recordedOffset: .nanoseconds(Int64(exchange.startMoment.monoNanoseconds - origin)),
                    dependencies: dependencies.sorted(), issuedCredentials: issued))
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
    /// When its client had the answer; nil when none came.
    var answerEnd: Moment? { delivered ?? responseReceived }

    /// The auth profile's roles that change which credentials are valid (README "Faults: rule files").
    static let credentialRoles: Set<String> = ["login", "refresh", "logout", "revoke"]

    /// Whether this exchange changes credentials: a role that does, or an answer that sets cookies
    /// (all a capture recorded without an auth profile can tell).
    var changesCredentials: Bool {
        role.map(Self.credentialRoles.contains) == true || response?.headers.contains(name: "set-cookie") == true
    }
}

extension CapturedRequest {
    /// Target, header values and body in one buffer, for finding the credentials it presents.
    var searchableBytes: [UInt8] {
        var bytes = Array(url.target.utf8)
        for field in headers {
            bytes.append(0x0A)
            bytes += field.value.utf8
        }
        bytes.append(0x0A)
        bytes += body?.bytes ?? []
        return bytes
    }
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
