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

    /// The clauses an exploration may name for this variant's flaw: its own, and for the client
    /// without a generation check also no-reactivation (it adopts the tokens of a refresh that
    /// completes after the logout as readily as it starts one after it).
    public var exploreExpected: Set<ClauseID> {
        flaws.contains(.noGenerationCheck) ? expected.union([.noReactivation]) : expected
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
