/// A compiled `ValueMatch`: the test on one named string value (header, query parameter,
/// cookie, form field).
///
/// A name can occur several times (`a=1&a=2`, two `Accept` fields). A positive test passes when
/// any occurrence passes; `exists: false` passes only when there is none. For header fields the
/// comma-joined value is tried too, since RFC 9110 §5.3 makes it equivalent to the separate
/// lines.
///
/// A class, like `FlowMatcher`: the engine walks these for every rule of every flow, and as values
/// each step copied an enum with payloads (measured in the engine's profile).
final class ValueMatcher {
    private enum Test {
        case equals(String)
        case exists(Bool)
        case regex(CompiledRegex)
        case contains(String)
    }

    private let test: Test

    init(_ match: ValueMatch) {
        switch match {
        case .equals(let value): test = .equals(value)
        case .exists(let expected): test = .exists(expected)
        case .regex(let pattern): test = .regex(CompiledRegex(pattern))
        case .contains(let text): test = .contains(text)
        }
    }

    /// Applies the test to every occurrence of the value (empty: the name is absent).
    /// `joinedForHeaders` also tries the values joined with ", " when there are several.
    func matches(_ values: [String], joinedForHeaders: Bool = false) -> Bool {
        if case .exists(let expected) = test { return values.isEmpty != expected }
        if values.contains(where: passes) { return true }
        return joinedForHeaders && values.count > 1 && passes(values.joined(separator: ", "))
    }

    private func passes(_ value: String) -> Bool {
        switch test {
        case .equals(let expected): return value == expected
        case .exists: return true
        case .regex(let regex): return regex.matches(value)
        case .contains(let text): return text.isEmpty || value.contains(text)
        }
    }
}

extension StatusMatch {
    /// True when `status` is one of the codes or in the class (`5xx`: 500...599).
    func matches(_ status: Int) -> Bool {
        switch self {
        case .codes(let codes): return codes.contains(status)
        case .statusClass(let digit): return status / 100 == digit && status >= 100
        }
    }
}
