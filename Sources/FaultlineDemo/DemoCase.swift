public import FaultlineContract

/// A reference client variant, the race it is driven through, and the clauses the contract
/// checker must name for it: none for the correct client, exactly one for each flaw.
public struct DemoCase: Sendable, Equatable {
    public let flaws: ClientFlaws
    public let scenario: DemoScenario
    public let expected: Set<ClauseID>

    public init(_ flaws: ClientFlaws, _ scenario: DemoScenario, expected: Set<ClauseID>) {
        self.flaws = flaws
        self.scenario = scenario
        self.expected = expected
    }

    /// The clauses an exploration may name for this variant's flaw: its own, and for a flaw that
    /// lets credentials be used after the logout, both clauses about that. Which one a schedule
    /// breaks is the order's doing: a credential issued before the logout and sent after it
    /// crosses the boundary (logout-boundary); one issued by an answer that arrived after it is
    /// reactivated (no-reactivation). The staged races fix the order, exploration does not.
    public var exploreExpected: Set<ClauseID> {
        let afterLogout: Set<ClauseID> = [.logoutBoundary, .noReactivation]
        return expected.isDisjoint(with: afterLogout) ? expected : expected.union(afterLogout)
    }

    /// The client variant's name (`correct`, `no-single-flight`, ...).
    public var variant: String { flaws.name }

    /// The correct client through every race, then each broken variant through the race that
    /// shows its flaw: the mutation proof of the checker (README.md, "What the demo shows").
    public static let mutationTable: [DemoCase] =
        DemoScenario.allCases.map { DemoCase([], $0, expected: []) } + [
            DemoCase(.noSingleFlight, .tokenRace, expected: [.singleFlightRefresh]),
            DemoCase(.refreshOnStale401, .late401, expected: [.noStaleRefresh]),
            DemoCase(.retryLoop, .alwaysRejected, expected: [.boundedRetry]),
            DemoCase(.noGenerationCheck, .logoutRace, expected: [.logoutBoundary]),
            DemoCase(.sharedCookieStore, .twoAccounts, expected: [.accountIsolation]),
            DemoCase(.keepCookiesAfterLogout, .lateSetCookie, expected: [.noReactivation]),
            DemoCase(.duplicateCompletion, .pipeline, expected: [.exactlyOnce]),
            DemoCase(.convertAfterFailedDownload, .pipeline, expected: [.dependencyRespected]),
            DemoCase(.writeAfterCancel, .pipeline, expected: [.dependencyRespected]),
            DemoCase(.retryWithEmptyBody, .noteRetry, expected: [.replaySafeRetry]),
            DemoCase(.adoptLateTokens, .lateRefresh, expected: [.noReactivation]),
            DemoCase(.ignoreRetryAfter, .rateLimited, expected: [.retryAfterRespected]),
        ]

    /// What `faultline demo` runs by default: the token-refresh and logout races, correct and broken.
    public static let demo: [DemoCase] = [
        DemoCase([], .tokenRace, expected: []),
        DemoCase(.noSingleFlight, .tokenRace, expected: [.singleFlightRefresh]),
        DemoCase([], .logoutRace, expected: []),
        DemoCase(.noGenerationCheck, .logoutRace, expected: [.logoutBoundary]),
        DemoCase(.refreshOnStale401, .late401, expected: [.noStaleRefresh]),
    ]
}
