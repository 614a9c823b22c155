import XCTest

extension Faultline {
    /// The XCTest counterpart of the `.faultline(...)` trait, which XCTest has no way to attach:
    /// starts the upstream and a proxy for `configuration`, runs `body` with them (also as
    /// ``current``), asserts the contract when it returns (`assertContractHolds`, unless the
    /// configuration turns checking off), and stops everything on every path.
    ///
    /// ```swift
    /// func testLogoutWinsOverALateRefresh() async throws {
    ///     try await Faultline.withXCTestScope(.init(rules: .directory("Rules"))) { faultline in
    ///         let app = MyApp(baseURL: faultline.baseURL)
    ///         ...
    ///     }
    /// }
    /// ```
    public static func withXCTestScope(
        _ configuration: Configuration, file: StaticString = #filePath, line: UInt = #line,
        _ body: (Faultline) async throws -> Void
    ) async throws {
        try await run(
            configuration,
            check: { scope in
                try scope.proxy.assertContractHolds(
                    configuration.contract, acceptingUnchecked: configuration.acceptingUnchecked, file: file,
                    line: line)
            },
            // The thrown error fails the test; XCTest has nothing to attach it to on Linux.
            failed: { _, _ in }, body)
    }
}
