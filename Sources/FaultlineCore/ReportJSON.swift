import Foundation

/// How the reports are written as JSON (the contract, explore and replay reports): pretty-printed,
/// keys sorted, slashes unescaped, a newline at the end. Foundation's encoder, because the reports
/// are `Encodable` documents; the one place this module uses Foundation.
package enum ReportJSON {
    /// `report` as that JSON; `what` ("a contract report") names it should it fail to encode,
    /// which a report of strings, numbers, bools, arrays and objects (every report's) cannot.
    package static func text(_ report: some Encodable, what: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
        } catch {
            preconditionFailure("\(what) failed to encode: \(error)")
        }
    }
}
