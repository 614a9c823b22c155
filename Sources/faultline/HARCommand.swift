/// `faultline har export|import`: not written yet.
enum HARCommand {
    static func run(_ arguments: [String]) -> Int32 {
        printError("faultline har: not available yet")
        return 2
    }
}
