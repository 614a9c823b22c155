import FaultlineCapture
import FaultlineCore
import FaultlineRules

/// The replay's state, sans I/O: the plan, the credentials learned so far, and each request's
/// result. The driver asks it for a request to send, and hands it the answer (or why there is
/// none); everything else (rewriting, learning, comparing) happens here.
public struct ReplaySession: Sendable {
    /// What the target did with one request.
    public enum Answer: Sendable, Equatable {
        case response(LiveResponse)
        /// Nothing usable came back: why (connect refused, timeout, malformed answer).
        case failed(String)
        /// The request could not be sent: why.
        case notSent(String)
    }

    public let plan: ReplayPlan
    public let options: ReplayOptions
    public private(set) var credentials: CredentialMap
    /// Results by step number - 1; nil until that step is finished.
    public private(set) var results: [ReplayResult?]
    /// Pseudonyms that went out as recorded, for want of a live value.
    public private(set) var unresolved: Set<String> = []

    public init(plan: ReplayPlan, options: ReplayOptions, credentials: CredentialMap) {
        self.plan = plan
        self.options = options
        self.credentials = credentials
        results = Array(repeating: nil, count: plan.steps.count)
    }

    /// Step `number`'s request with the credentials known now, or why it cannot be sent.
    public mutating func request(for number: Int) -> Result<ReplayRequest, ReplayRequest.Refusal> {
        let step = plan.step(number)
        let request = Result { () throws(ReplayRequest.Refusal) in
            try ReplayRequest(
                recorded: step.request, target: options.target, keepHost: options.keepHost, credentials: credentials)
        }
        if case .success(let built) = request { unresolved.formUnion(built.unresolved) }
        return request
    }

    /// Records step `number`'s answer: learns the credentials it issues, compares it with the
    /// recorded one, and returns the result.
    @discardableResult
    public mutating func finish(
        _ number: Int, with answer: Answer, sentAfter: Duration = .zero, duration: Duration = .zero
    )
        -> ReplayResult
    {
        let step = plan.step(number)
        let recorded = step.exchange.response
        var result = ReplayResult(
            number: number, method: step.request.method, url: step.request.url.description,
            recordedStatus: recorded?.status,
            status: nil, outcome: .same, sentAfter: sentAfter, duration: duration)
        switch answer {
        case .response(let live):
            learn(from: live, issuing: step.issuedCredentials)
            result.status = live.status
            result.differences = ResponseComparison.differences(
                recorded: recorded, live: live, comparesBodies: options.comparesBodies, credentials: credentials)
            result.outcome = result.differences.isEmpty ? .same : .different
        case .failed(let reason):
            result.error = reason
            // A recorded exchange the upstream never answered is matched by no answer now.
            result.outcome = recorded == nil ? .same : .failed
        case .notSent(let reason):
            result.error = reason
            result.outcome = .skipped
        }
        results[number - 1] = result
        return result
    }

    /// Whether every step has a result.
    public var isComplete: Bool { results.allSatisfy { $0 != nil } }

    /// How many steps have a result, and how many of those count as differences.
    public var progress: (finished: Int, differences: Int) {
        let finished = results.compactMap { $0 }
        return (finished.count, finished.filter(\.isDifference).count)
    }

    /// The live value at each place the recorded answer issued a credential stands for that
    /// recorded credential from now on.
    private mutating func learn(from live: LiveResponse, issuing sites: [CredentialSite]) {
        guard !sites.isEmpty else { return }
        let document =
            sites.contains { if case .json = $0.place { true } else { false } } ? JSONValue.parse(live.body) : nil
        for site in sites {
            guard let value = CredentialSite.value(at: site.place, headers: live.headers, json: document) else {
                continue
            }
            credentials.learn(recorded: site.value, live: value)
        }
    }
}
