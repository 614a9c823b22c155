import FaultlineContract

extension ExploreReport {
    /// Joins the reports of shards of one exploration (`faultline explore merge`): every run, by
    /// schedule number; each clause's count summed, its first schedule the lowest-numbered one,
    /// and that shard's shrunk schedule. Throws when the reports are not of one exploration
    /// (another strategy, seed, schedule count, settle window or contract) or a shard repeats.
    public static func merged(_ reports: [ExploreReport]) throws(ExploreFailure) -> ExploreReport {
        guard var merged = reports.first else { throw ExploreFailure("no report to merge") }
        for report in reports.dropFirst() {
            let same =
                report.strategy == merged.strategy && report.seed == merged.seed && report.schedules == merged.schedules
                && report.settleMilliseconds == merged.settleMilliseconds && report.contract == merged.contract
            guard same else {
                throw ExploreFailure(
                    "the reports are of different explorations: \(merged.strategy) seed \(merged.seed), \(merged.schedules) schedules against \(report.strategy) seed \(report.seed), \(report.schedules) schedules (or another settle window or contract)"
                )
            }
        }
        let shards = reports.compactMap(\.shard)
        if Set(shards.map(\.index)).count != shards.count {
            throw ExploreFailure("a shard appears twice: \(shards.map(\.description).joined(separator: ", "))")
        }
        var seen = Set<Int>()
        merged.runs = reports.flatMap(\.runs).sorted { $0.index < $1.index }.filter { seen.insert($0.index).inserted }
        merged.shard = nil
        merged.findings = []
        for run in merged.runs {
            for clause in run.violated {
                if let position = merged.findings.firstIndex(where: { $0.clause == clause }) {
                    merged.findings[position].schedules += 1
                } else {
                    var finding = Finding(clause: clause, schedules: 1, first: run)
                    if let shrunk = reports.lazy.flatMap(\.findings).first(where: {
                        $0.clause == clause && $0.first.index == run.index
                    }) {
                        finding.shrunk = shrunk.shrunk
                        finding.shrunkDeviations = shrunk.shrunkDeviations
                        finding.shrinkRuns = shrunk.shrinkRuns
                    }
                    merged.findings.append(finding)
                }
            }
        }
        merged.interrupted = reports.contains(where: \.interrupted)
        merged.problem = reports.lazy.compactMap(\.problem).first
        merged.elapsedSeconds = reports.reduce(0) { $0 + $1.elapsedSeconds }
        let shrinking = reports.compactMap(\.shrinkSeconds)
        merged.shrinkSeconds = shrinking.isEmpty ? nil : shrinking.reduce(0, +)
        let cuts = reports.compactMap(\.cut)
        merged.cut = cuts.isEmpty ? nil : cuts.reduce(0, +)
        return merged
    }
}
