/// What the scheduler does at a decision point: let one pending step go, or keep them all
/// pending and wait for the client's next arrival (a logout on a timer, a second screen's
/// request), so that something later can overtake what is pending now.
public enum ExploreChoice: Sendable, Equatable, Hashable {
    /// The step at this index of the pending steps, oldest first (0 is first come, first served).
    case step(Int)
    case wait

    /// `3`, or `w`: how a schedule string writes it.
    public var token: String {
        switch self {
        case .step(let index): String(index)
        case .wait: "w"
        }
    }

    /// Whether this is a deviation from arrival order: anything but the oldest step.
    public var deviates: Bool { self != .step(0) }
}
