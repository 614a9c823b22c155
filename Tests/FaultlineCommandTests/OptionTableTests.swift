import Testing

@testable import faultline

@Suite struct OptionTableTests {
    @Test func aLineIsTheOptionItsPlaceholderAndItsHelp() {
        let specs = OptionSpec.table(
            """
            --listen ADDR  address to listen on
            --tls          the --listen before it speaks TLS
            -o FILE        same as --output
            """)
        #expect(specs.map(\.name) == ["--listen", "--tls", "-o"])
        #expect(specs.map(\.value) == ["ADDR", nil, "FILE"])
        #expect(specs.map(\.help) == ["address to listen on", "the --listen before it speaks TLS", "same as --output"])
    }

    /// Two spaces end the option; any more are alignment. Single spaces belong to the
    /// placeholder (`'NAME: VALUE'`) or to the help.
    @Test func twoOrMoreSpacesSeparateTheHelp() {
        let specs = OptionSpec.table(
            """
            --header 'NAME: VALUE'  a header  (repeatable)
            --all      every hold
            --id N    the hold's id
            """)
        #expect(specs.map(\.name) == ["--header", "--all", "--id"])
        #expect(specs.map(\.value) == ["'NAME: VALUE'", nil, "N"])
        // Only the first gap separates: a wider one later is the help's own.
        #expect(specs.map(\.help) == ["a header  (repeatable)", "every hold", "the hold's id"])
    }

    /// A table aligned as the help aligns it prints as itself, indented.
    @Test func anAlignedTablePrintsAsWritten() {
        let text = """
            --format FORMAT  pem (default) or der
            --output FILE    write to FILE instead of stdout (- is stdout)
            --quiet          say nothing
            """
        let printed = text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        #expect(optionLines(OptionSpec.table(text)) == printed)
    }

    @Test(arguments: ["--json", "--json ", "--json VALUE", "json  no dash", "  --json  indented", "--a=b  equals", ""])
    func aMalformedLineStopsTheProgram(line: String) async {
        await #expect(processExitsWith: .failure) { [line] in _ = OptionSpec.table(line) }
    }

    /// Every command's table, so that a malformed line fails here rather than when the command runs.
    @Test func everyCommandsTableParses() {
        let tables: [(String, [OptionSpec])] =
            [
                ("run", RunCommand.specs), ("ca options", CAOptions.specs), ("explore", ExploreCommand.ownSpecs),
                ("explore (run)", ExploreCommand.runSpecs), ("replay serve", ReplayServeCommand.specs),
                ("replay client", ReplayClientCommand.specs), ("backend", BackendCommand.specs),
                ("check", CheckCommand.specs), ("demo", DemoCommand.specs),
                ("control", ControlCommand.connectionSpecs), ("holds", HoldsCommand.specs),
                ("state", StateCommand.specs), ("release", ReleaseCommand.releaseSpecs),
                ("fail", ReleaseCommand.failSpecs), ("mark", MarkCommand.specs), ("ui", UICommand.specs),
                ("rules list", RulesControlCommand.specs), ("rules from-capture", RulesCommand.fromCaptureSpecs),
                ("har export", HARCommand.exportSpecs), ("har import", HARCommand.importSpecs),
            ] + CACommand.subcommands.map { ("ca \($0.name)", $0.specs) }
        for (command, specs) in tables {
            #expect(!specs.isEmpty, "\(command)")
            for spec in specs {
                #expect(spec.name.hasPrefix("--") || spec.name == "-o", "\(command): \(spec.name)")
                #expect(!spec.help.isEmpty, "\(command): \(spec.name)")
            }
            #expect(Set(specs.map(\.name)).count == specs.count, "\(command) names an option twice")
        }
    }

    /// `explore` takes `run`'s per-schedule options but says its own default for `--loops`.
    @Test func exploreKeepsRunsOptionsWithItsOwnLoopsHelp() {
        let loops = ExploreCommand.runSpecs.first { $0.name == "--loops" }
        #expect(loops?.value == "N")
        #expect(loops?.help.hasPrefix("event-loop threads (default 1:") == true)
        #expect(!ExploreCommand.runSpecs.contains { $0.name == "--trace" })
        #expect(ExploreCommand.runSpecs.contains { $0.name == "--listen" })
    }
}
