extension StringProtocol {
    /// Without leading and trailing spaces and tabs: the optional whitespace around field values
    /// and list elements (OWS, RFC 9110 §5.6.3).
    public var trimmingOWS: SubSequence {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isOWS($0) }), let last = lastIndex(where: { !isOWS($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
