/// How a report names the files it judged (the trace, and the contract file).
extension ReportFormatter {
    /// The trace's (or contract file's) file name, without the folders of the path it was read
    /// from: reports are attached to pull requests and CI runs, and a path such as
    /// `/home/alice/client/traces/` would tell every reader about the machine it came from. A
    /// name that is not a path (`standard input`, `TestProxy trace`) is kept as it is.
    public static func traceFileName(_ traceName: String) -> String {
        traceName.split(separator: "/").last.map(String.init) ?? traceName
    }
}
