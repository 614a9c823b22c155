import Foundation
import Testing

@testable import FaultlineRules

/// The body read limit is stated in one place in code (`BodyReadLimit`) and said in the
/// documents; these keep every document's number equal to the code's.
@Suite struct BodyReadLimitTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every document that states the limit, and how many times at least.
    static let documents = [
        ("Rules/README.md", 2), ("Rules/faultline-rules.schema.json", 1),
        ("Rules/faultline-auth-profile.schema.json", 1),
        ("Rules/auth-profile.json5", 1), ("ARCHITECTURE.md", 1), ("README.md", 1),
    ]

    /// Each "up to N KiB|MiB" (or "over N ...") in `text`, in bytes.
    static func statedLimits(in text: String) -> [Int] {
        let pattern = /(?:up to|over) (\d+) (KiB|MiB)/
        return text.matches(of: pattern).map { match in
            (Int(match.output.1) ?? 0) * (match.output.2 == "MiB" ? 1024 * 1024 : 1024)
        }
    }

    @Test(arguments: documents) func theDocumentsSayTheCodesLimit(_ document: (String, Int)) throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent(document.0), encoding: .utf8)
        let stated = Self.statedLimits(in: text)
        #expect(stated.count >= document.1, "\(document.0) no longer states the body read limit")
        #expect(
            stated.allSatisfy { $0 == BodyReadLimit.bytes },
            "\(document.0) says \(stated), the code \(BodyReadLimit.bytes)")
    }

    @Test func theTextIsTheNumber() {
        #expect(BodyReadLimit.text == "256 KiB")
        #expect(Self.statedLimits(in: "read up to \(BodyReadLimit.text) first") == [BodyReadLimit.bytes])
    }
}
