/// A step of a flow for the lineage tracker, as a value: the flow core says what happened, and
/// the driver, which owns the tracker, tells it (`LineageTracker.perform`) and traces the
/// `lineage.*` events it answers with.
public enum LineageStep: Sendable, Equatable {
    /// The request went upstream (a logout closes its lineage here).
    case requestSent(role: String, credentials: [Credential])
    /// The response was delivered (logins, refreshes, issued cookies, revocations); `reserved`
    /// is the lineage numbered for a login when its response head arrived (in a capture).
    case responseCompleted(
        role: String, credentials: [Credential], status: Int, headers: [(name: String, value: String)],
        body: [UInt8]?, reserved: LineageID? = nil)

    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.requestSent(let role, let credentials), .requestSent(let otherRole, let otherCredentials)):
            return role == otherRole && credentials == otherCredentials
        case (
            .responseCompleted(let role, let credentials, let status, let headers, let body, let reserved),
            .responseCompleted(let role2, let credentials2, let status2, let headers2, let body2, let reserved2)
        ):
            return role == role2 && credentials == credentials2 && status == status2
                && headers.elementsEqual(headers2) { $0 == $1 } && body == body2 && reserved == reserved2
        default:
            return false
        }
    }
}

extension LineageTracker {
    /// Takes one step of a flow; returns the events to trace.
    public func perform(_ step: LineageStep) -> [LineageEvent] {
        switch step {
        case .requestSent(let role, let credentials):
            return requestSent(role: role, credentials: credentials)
        case .responseCompleted(let role, let credentials, let status, let headers, let body, let reserved):
            return responseCompleted(
                role: role, requestCredentials: credentials, status: status, headers: headers, body: body,
                reservedLineage: reserved)
        }
    }
}
