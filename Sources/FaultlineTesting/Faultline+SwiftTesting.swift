public import Testing

extension Faultline {
    /// What the `.faultline(...)` trait does, for code that wants the scope without the trait
    /// (a helper running several scopes, a test that checks what the scope leaves behind):
    /// starts the upstream and a proxy for `configuration`, runs `body` with them (also as
    /// ``current``), expects the contract to hold when it returns (unless turned off), and stops
    /// everything on every path. `label` names the failure attachments (the test's name).
    public static func withScope(
        _ configuration: Configuration, label: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (Faultline) async throws -> Void
    ) async throws {
        let name = label ?? Test.current?.name ?? "\(sourceLocation.fileName)-\(sourceLocation.line)"
        try await run(
            configuration,
            check: { scope in
                try scope.proxy.expectContractHolds(
                    configuration.contract, acceptingUnchecked: configuration.acceptingUnchecked, label: name,
                    sourceLocation: sourceLocation)
            },
            failed: { scope, _ in
                // A test that stopped early still leaves what its client did for the run's log.
                scope.proxy.recordAttachments(label: name, reportFile: nil, sourceLocation: sourceLocation)
            }, body)
    }
}
