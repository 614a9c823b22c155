/// The verdict on one trace: which clauses were checked, which were broken and by which
/// requests, and whether the trace itself is sound.
///
/// `ContractChecker` makes one; `ReportFormatter` prints it for people (text), CI (JUnit) and
/// tools (JSON, which decodes back into an equal report).
public struct ContractReport: Sendable, Equatable, Codable {
    /// A clause that was enabled but could not be judged on this trace, and why.
    public struct SkippedClause: Sendable, Equatable, Codable {
        /// What was missing.
        public enum Cause: String, Sendable, Equatable, Codable {
            /// The trace lacks what the clause judges (no auth profile loaded, no login seen): a
            /// broken client would have passed unseen, so a test should not count it as a pass.
            case missingData = "missing-data"
            /// The contract declares nothing for the clause to check (no callbacks, no pipeline
            /// steps): there is nothing to break, whatever the trace holds.
            case nothingDeclared = "nothing-declared"
        }

        /// The clause.
        public var clause: ClauseID
        /// Why, in one sentence: `the trace has no auth-profile data (roles, credentials, lineage events)`.
        public var reason: String
        /// Whether the trace or the contract was missing something.
        public var cause: Cause

        /// Makes an entry.
        public init(clause: ClauseID, reason: String, cause: Cause = .missingData) {
            self.clause = clause
            self.reason = reason
            self.cause = cause
        }

        private enum CodingKeys: String, CodingKey { case clause, reason, cause }

        /// Reads an entry; reports written before `cause` existed only skipped for missing data.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            clause = try container.decode(ClauseID.self, forKey: .clause)
            reason = try container.decode(String.self, forKey: .reason)
            cause = try container.decodeIfPresent(Cause.self, forKey: .cause) ?? .missingData
        }
    }

    /// An enabled clause the checker ran that the trace gave nothing to judge: no refresh for the
    /// refresh clauses, no declared callback for exactly-once. Never shown as held (✓): a clause
    /// that saw nothing proves nothing. It does not make the verdict partial either: the trace
    /// was complete, the client just never met the case.
    public struct UnexercisedClause: Sendable, Equatable, Codable {
        /// The clause.
        public var clause: ClauseID
        /// What the trace lacks, in one phrase: `the trace has no refresh`.
        public var reason: String

        /// Makes an entry.
        public init(clause: ClauseID, reason: String) {
            self.clause = clause
            self.reason = reason
        }
    }

    /// The contract the trace was checked against.
    public var contract: ContractSummary
    /// Every violation found, in the order they were found (by the `seq` that completed them),
    /// at most ``ContractChecker/maximumViolationsPerClause`` per clause.
    public var violations: [Violation]
    /// Violations found beyond the per-clause limit and left out of ``violations``, per clause.
    public var omittedViolations: [ClauseID: Int]
    /// The clauses that were judged, in ``ClauseID/allCases`` order (those the trace gave nothing
    /// to judge included; ``clausesUnexercised`` names them).
    public var clausesChecked: [ClauseID]
    /// Checked clauses the trace gave nothing to judge, in ``ClauseID/allCases`` order.
    public var clausesUnexercised: [UnexercisedClause]
    /// Enabled clauses that this trace gave nothing to judge (no profile data, nothing declared).
    public var clausesSkipped: [SkippedClause]
    /// Clauses the contract turned off.
    public var clausesDisabled: [ClauseID]
    /// Problems with the trace itself (gaps, clear secrets), at most
    /// ``ContractChecker/maximumTraceProblems``.
    public var traceProblems: [TraceProblem]
    /// Trace problems found beyond that limit.
    public var omittedTraceProblems: Int
    /// Events read.
    public var eventCount: Int
    /// Credential lineages rebuilt from the trace (`L1`, `L2`, ...), in order of first appearance.
    public var lineages: [String]

    /// Makes a report; the checker fills it in.
    public init(
        contract: ContractSummary = ContractSummary(.default), violations: [Violation] = [],
        omittedViolations: [ClauseID: Int] = [:], clausesChecked: [ClauseID] = [],
        clausesUnexercised: [UnexercisedClause] = [], clausesSkipped: [SkippedClause] = [],
        clausesDisabled: [ClauseID] = [], traceProblems: [TraceProblem] = [], omittedTraceProblems: Int = 0,
        eventCount: Int = 0, lineages: [String] = []
    ) {
        self.contract = contract
        self.violations = violations
        self.omittedViolations = omittedViolations
        self.clausesChecked = clausesChecked
        self.clausesUnexercised = clausesUnexercised
        self.clausesSkipped = clausesSkipped
        self.clausesDisabled = clausesDisabled
        self.traceProblems = traceProblems
        self.omittedTraceProblems = omittedTraceProblems
        self.eventCount = eventCount
        self.lineages = lineages
    }

    /// True when no clause was broken and the trace itself has no problem. A trace with gaps or
    /// a clear secret does not pass: missing events could hide a violation, and a leaked secret
    /// is a failure of its own.
    public var passed: Bool { violations.isEmpty && traceProblems.isEmpty }

    /// The violations of one clause.
    public func violations(of clause: ClauseID) -> [Violation] { violations.filter { $0.clause == clause } }

    /// How many violations of `clause` were found, including omitted ones.
    public func violationCount(of clause: ClauseID) -> Int {
        violations(of: clause).count + (omittedViolations[clause] ?? 0)
    }

    /// Whether `clause` was checked and had something to judge, so it may be shown as held.
    public func exercised(_ clause: ClauseID) -> Bool {
        clausesChecked.contains(clause) && !clausesUnexercised.contains { $0.clause == clause }
    }

    /// The clauses with at least one violation, in ``ClauseID/allCases`` order.
    public var brokenClauses: [ClauseID] {
        ClauseID.allCases.filter { violationCount(of: $0) > 0 }
    }

    private enum CodingKeys: String, CodingKey {
        case format, contract, passed, violations, omittedViolations, clausesChecked, clausesUnexercised
        case clausesSkipped, clausesDisabled
        case traceProblems, omittedTraceProblems, eventCount, lineages
    }

    /// The `format` value of the JSON report, so tools can recognise it.
    public static let jsonFormatName = "faultline-contract-report/1"

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decode(String.self, forKey: .format)
        guard format == Self.jsonFormatName else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container, debugDescription: "expected \(Self.jsonFormatName), found \(format)")
        }
        // Reports written before these fields existed: the default contract, every clause exercised.
        contract = try container.decodeIfPresent(ContractSummary.self, forKey: .contract) ?? ContractSummary(.default)
        violations = try container.decode([Violation].self, forKey: .violations)
        omittedViolations = try container.decode([ClauseID: Int].self, forKey: .omittedViolations)
        clausesChecked = try container.decode([ClauseID].self, forKey: .clausesChecked)
        clausesUnexercised =
            try container.decodeIfPresent([UnexercisedClause].self, forKey: .clausesUnexercised) ?? []
        clausesSkipped = try container.decode([SkippedClause].self, forKey: .clausesSkipped)
        clausesDisabled = try container.decode([ClauseID].self, forKey: .clausesDisabled)
        traceProblems = try container.decode([TraceProblem].self, forKey: .traceProblems)
        omittedTraceProblems = try container.decode(Int.self, forKey: .omittedTraceProblems)
        eventCount = try container.decode(Int.self, forKey: .eventCount)
        lineages = try container.decode([String].self, forKey: .lineages)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.jsonFormatName, forKey: .format)
        try container.encode(contract, forKey: .contract)
        try container.encode(passed, forKey: .passed)
        try container.encode(violations, forKey: .violations)
        try container.encode(omittedViolations, forKey: .omittedViolations)
        try container.encode(clausesChecked, forKey: .clausesChecked)
        try container.encode(clausesUnexercised, forKey: .clausesUnexercised)
        try container.encode(clausesSkipped, forKey: .clausesSkipped)
        try container.encode(clausesDisabled, forKey: .clausesDisabled)
        try container.encode(traceProblems, forKey: .traceProblems)
        try container.encode(omittedTraceProblems, forKey: .omittedTraceProblems)
        try container.encode(eventCount, forKey: .eventCount)
        try container.encode(lineages, forKey: .lineages)
    }
}
