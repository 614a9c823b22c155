extension SourceLocation {
    /// `line:column` without the file, for messages that point back into the same file
    /// ("first defined at 3:5").
    public var lineColumn: String { "\(line):\(column)" }
}
