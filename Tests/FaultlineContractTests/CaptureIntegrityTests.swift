import FaultlineContract
import FaultlineCore
import FaultlineTrace
import Testing

/// A capture writes secrets as pseudonyms (`flp.KIND.LINEAGE.N`): the checker reads it as it
/// reads a trace, and takes its pseudonyms for redacted values. A plain trace still must show
/// fingerprints only, and a capture that keeps raw secrets says so in its header.
@Suite struct CaptureIntegrityTests {
    static func header(secrets: String?) -> TraceHeader {
        TraceHeader(
            formatVersion: 1, faultlineVersion: "t", created: "", fingerprint: "hmac-sha256-64",
            attributes: secrets.map { ["capture": .object(["secrets": .string($0), "body_limit": .int(1024)])] } ?? [:])
    }

    static let pseudonymEvents = [
        TraceIntegrityTests.request(
            headers: [
                ("Authorization", "Bearer flp.access.L1.2"), ("Cookie", "sid=flp.cookie-sid.L1.1"),
                ("Set-Cookie", "sid=flp.cookie-sid.L1.1; Path=/"),
            ],
            url: "http://api.test/x?access_token=flp.access.L1.2"),
        TraceEvent(
            seq: 2, wall: "w", monoNanoseconds: 2000, kind: "lineage.login",
            attributes: ["lineage": .string("L1"), "issued": .array([.string("access=flp.access.L1.2")])]),
    ]

    static func problems(_ events: [TraceEvent], secrets: String?) -> [TraceProblem] {
        ContractChecker.check(Trace(header: header(secrets: secrets), events: events)).traceProblems
    }

    @Test func pseudonymsAreRedactedInACapture() {
        #expect(Self.problems(Self.pseudonymEvents, secrets: "pseudonyms").isEmpty)
    }

    @Test func pseudonymsInAPlainTraceAreNot() {
        #expect(Self.problems(Self.pseudonymEvents, secrets: nil).count == 5)
    }

    @Test func somethingThatOnlyLooksLikeAPseudonymIsStillFound() {
        let almost = ["flp.access.L1", "flp.access.L1.2x", "flp..L1.2", "flp.Access.L1.2", "xflp.access.L1.2"]
        for value in almost {
            let events = [TraceIntegrityTests.request(headers: [("Authorization", "Bearer \(value)")])]
            #expect(Self.problems(events, secrets: "pseudonyms").count == 1, "\(value)")
        }
    }

    @Test func aCaptureThatKeepsSecretsIsNotScanned() {
        let raw = [TraceIntegrityTests.request(headers: [("Authorization", "Bearer raw-token")])]
        #expect(Self.problems(raw, secrets: "kept").isEmpty)
        #expect(Self.problems(raw, secrets: "pseudonyms").count == 1)
    }
}
