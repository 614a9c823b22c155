extension Duration {
    /// The duration as fractional seconds (for traces, reports and `Thread.sleep`).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded toward zero (for reports and command lines
    /// that speak in milliseconds).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// A duration from fractional seconds, as rule files and command-line flags spell them.
    public static func seconds(fractional seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
