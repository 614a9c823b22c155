/// `faultline replay serve CAPTURE`: not written yet.
enum ReplayServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        printError("faultline replay serve: not available yet")
        return 2
    }
}
