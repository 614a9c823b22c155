extension Duration {
    /// The duration as fractional seconds (for traces, reports and `Thread.sleep`).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A duration from fractional seconds, as rule files and command-line flags spell them.
    public static func seconds(fractional seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
