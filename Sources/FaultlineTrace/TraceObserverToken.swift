/// What `TraceRecorder.addObserver` returns: the subscription, for `removeObserver`, and where
/// it starts.
public struct TraceObserverToken: Sendable, Hashable {
    let id: UInt64
    /// The last `seq` recorded before the subscription: the observer hears every later line and
    /// none of these. A viewer that shows the past (`TraceRecorder.recentLines`) shows it up to
    /// here, so no line is shown twice.
    public let subscribedAfter: UInt64
}
