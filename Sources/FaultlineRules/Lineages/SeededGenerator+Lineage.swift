import FaultlineCore

extension SeededGenerator {
    /// The generator of one lineage of a lineage-scoped scenario: seeded from the scenario seed
    /// and the lineage number, so lineages draw independent but reproducible sequences.
    init(seed: UInt64, lineage: LineageID?) {
        guard let lineage else {
            self.init(seed: seed)
            return
        }
        var mixer = seed ^ (UInt64(truncatingIfNeeded: lineage.rawValue) &* 0xD605_BBB5_8C8A_BBB5)
        self.init(seed: Self.splitMix(&mixer))
    }
}
