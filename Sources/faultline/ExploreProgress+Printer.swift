import FaultlineContract
import FaultlineExplorer
import Foundation
import Synchronization

/// Progress on standard error: a bar redrawn in place on a terminal, a line every tenth of the
/// schedules otherwise (CI logs).
final class ProgressPrinter: Sendable {
    private let total: Int
    private let terminal = isatty(2) == 1
    private let state = Mutex<(lastTenth: Int, drawn: Bool)>((-1, false))

    init(total: Int) { self.total = total }

    func show(_ progress: ExploreProgress) {
        let failing = "\(progress.failing) failing"
        let rate = String(format: "%.1f/s", progress.rate)
        let shrinking = progress.shrinking.map { " · shrinking \($0.rawValue)" } ?? ""
        if terminal {
            let width = 24
            let filled = total > 0 ? width * progress.done / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            FileHandle.standardError.write(
                Data("\r\u{1B}[K[\(bar)] \(progress.done)/\(total) schedules · \(failing) · \(rate)\(shrinking)".utf8))
            state.withLock { $0.drawn = true }
            return
        }
        let tenth = total > 0 ? progress.done * 10 / total : 10
        let print = state.withLock { state -> Bool in
            guard tenth != state.lastTenth || progress.shrinking != nil else { return false }
            state.lastTenth = tenth
            return true
        }
        if print {
            printError("faultline explore: \(progress.done)/\(total) schedules, \(failing), \(rate)\(shrinking)")
        }
    }

    /// Ends the bar's line.
    func finish() {
        if state.withLock({ $0.drawn }) { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
