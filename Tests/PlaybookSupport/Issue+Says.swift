public import Testing

extension Issue {
    /// True when the issue is the playbook's own complaint with this text, not any other.
    public func says(_ text: String) -> Bool {
        comments.contains { $0.rawValue.contains(text) }
    }
}
