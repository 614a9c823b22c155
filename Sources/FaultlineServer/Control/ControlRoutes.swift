/// One endpoint: a method and a path pattern whose `{}` segments are handed to the handler.
struct ControlRoute: Sendable {
    typealias Handler = @Sendable (ControlAPI, ControlRequest, [String]) throws(ControlFailure) -> ControlReply

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter
    }

    let method: String
    private let pattern: [Segment]
    let handler: Handler

    /// `path` is written like `/v1/holds/{name}/wait`; what is inside the braces is documentation.
    init(_ method: String, _ path: String, _ handler: @escaping Handler) {
        self.method = method
        pattern = path.split(separator: "/").map { $0.hasPrefix("{") ? .parameter : .literal(String($0)) }
        self.handler = handler
    }

    /// The parameter values when `path` fits the pattern, else nil.
    func match(_ path: [String]) -> [String]? {
        guard path.count == pattern.count else { return nil }
        var parameters: [String] = []
        for (segment, part) in zip(pattern, path) {
            switch segment {
            case .literal(let text): if text != part { return nil }
            case .parameter: parameters.append(part)
            }
        }
        return parameters
    }
}

/// The table of endpoints. A path may fit several patterns (`/v1/state/reset` is both the reset
/// endpoint and a scenario named "reset"); the first with the request's method wins, and the
/// methods of all of them make up a 405's `Allow`.
enum ControlRoutes {
    static let all: [ControlRoute] = [
        ControlRoute("GET", "/v1/health") { api, _, _ in api.health() },
        ControlRoute("GET", "/v1/rules") { api, _, _ in api.listRules() },
        ControlRoute("POST", "/v1/rules/reload") { api, _, _ throws(ControlFailure) in try api.reloadRules() },
        ControlRoute("POST", "/v1/rules/{scenario}/{rule}/enable") { api, _, parameters throws(ControlFailure) in
            try api.setRule(scenario: parameters[0], rule: parameters[1], enabled: true)
        },
        ControlRoute("POST", "/v1/rules/{scenario}/{rule}/disable") { api, _, parameters throws(ControlFailure) in
            try api.setRule(scenario: parameters[0], rule: parameters[1], enabled: false)
        },
        ControlRoute("POST", "/v1/scenarios/{scenario}/enable") { api, _, parameters throws(ControlFailure) in
            try api.setScenario(parameters[0], enabled: true)
        },
        ControlRoute("POST", "/v1/scenarios/{scenario}/disable") { api, _, parameters throws(ControlFailure) in
            try api.setScenario(parameters[0], enabled: false)
        },
        ControlRoute("GET", "/v1/holds") { api, _, _ in api.listHolds() },
        ControlRoute("GET", "/v1/holds/{name}/wait") { api, request, parameters throws(ControlFailure) in
            try api.waitForHold(parameters[0], request)
        },
        ControlRoute("POST", "/v1/holds/{name}/release") { api, request, parameters throws(ControlFailure) in
            try api.release(parameters[0], request)
        },
        ControlRoute("POST", "/v1/holds/{name}/fail") { api, request, parameters throws(ControlFailure) in
            try api.fail(parameters[0], request)
        },
        ControlRoute("GET", "/v1/state") { api, _, _ in api.listStates() },
        ControlRoute("POST", "/v1/state/reset") { api, request, _ throws(ControlFailure) in try api.resetState(request)
        },
        ControlRoute("PUT", "/v1/state/{scenario}") { api, request, parameters throws(ControlFailure) in
            try api.setState(parameters[0], request)
        },
        ControlRoute("POST", "/v1/marks") { api, request, _ throws(ControlFailure) in try api.mark(request) },
        ControlRoute("GET", "/v1/trace/stream") { _, _, _ in .traceStream },
        ControlRoute("POST", "/v1/ui/tickets") { api, _, _ throws(ControlFailure) in try api.issueUITicket() },
    ]
}
