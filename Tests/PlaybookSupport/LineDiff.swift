/// What the strict playbooks print when the actions differ from the expected lines.
public enum LineDiff {
    /// A line-by-line diff (longest common subsequence) of what was expected and what came:
    /// `-` expected and missing, `+` came and not expected.
    public static func diff(_ expected: [String], _ actual: [String]) -> String {
        let n = expected.count
        let m = actual.count
        var common = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                common[i][j] =
                    expected[i] == actual[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [String] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                lines.append("    \(expected[i])")
                i += 1
                j += 1
            } else if j < m, i == n || common[i][j + 1] >= common[i + 1][j] {
                lines.append("  + \(actual[j])")
                j += 1
            } else {
                lines.append("  - \(expected[i])")
                i += 1
            }
        }
        return lines.joined(separator: "\n")
    }
}
