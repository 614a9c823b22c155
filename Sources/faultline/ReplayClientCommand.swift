/// `faultline replay client CAPTURE --target URL`: not written yet.
enum ReplayClientCommand {
    static func run(_ arguments: [String]) -> Int32 {
        printError("faultline replay client: not available yet")
        return 2
    }
}
