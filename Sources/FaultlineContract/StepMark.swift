/// A step mark of the testing library, read word by word: `step write job=7 outcome=cancelled`,
/// as `TestProxy.step` writes it. The app's own pipeline steps and completions reach the
/// pipeline clauses this way, in process, where the wire shows nothing.
struct StepMark {
    /// The step's name: the word after `step`.
    let name: String
    /// The `outcome=` word's value (`started`, `succeeded`, `failed`, `cancelled`), or nil.
    let outcome: String?
    private let words: [Substring]

    /// Reads `label`; nil unless it is `step NAME ...`.
    init?(label: String) {
        let words = label.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 2, words[0] == "step" else { return nil }
        self.words = words
        name = String(words[1])
        outcome = Self.value(of: "outcome", in: words)
    }

    /// The value of the mark's `key=value` word for `key` (`job=7` gives "7"), or nil.
    func value(of key: String) -> String? { Self.value(of: key, in: words) }

    private static func value(of key: String, in words: [Substring]) -> String? {
        let prefix = "\(key)="
        return words.dropFirst(2).first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}
