import FaultlineConfig
import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineRules

/// Listing, waiting for, releasing and failing held flows.
extension ControlAPI {
    /// The longest `GET /v1/holds/{name}/wait` may wait, and the default.
    static let maximumWait: Double = 300
    static let defaultWait: Double = 10

    /// `GET /v1/holds`: every held flow, oldest first.
    func listHolds() -> ControlReply {
        let now = MonotonicInstant.now()
        return .ok(.array(runtime.holds.list().map { ControlJSON.hold($0, now: now) }))
    }

    /// `GET /v1/holds/{name}/wait?timeout=SECONDS`: checks the timeout; the connection waits.
    func waitForHold(_ name: String, _ request: ControlRequest) throws(ControlFailure) -> ControlReply {
        var seconds = Self.defaultWait
        if let text = request.query["timeout"] {
            guard let value = Double(text), value.isFinite, (0...Self.maximumWait).contains(value) else {
                throw ControlFailure(
                    400, "timeout must be a number of seconds from 0 to \(Int(Self.maximumWait)), not '\(text)'")
            }
            seconds = value
        }
        return .waitForHold(name: name, timeout: .seconds(fractional: seconds))
    }

    /// `POST /v1/holds/{name}/release` with optional `{id, all, status, headers, body}`:
    /// `{released: [holds]}`; with `status` the flow is answered with that response instead.
    func release(_ name: String, _ request: ControlRequest) throws(ControlFailure) -> ControlReply {
        let body = try ControlBody.object(
            request, allowed: ["id", "all", "status", "headers", "body"], required: false)
        let selection = try HoldSelection(body)
        var response: SyntheticResponse? = nil
        if let body {
            response = try ControlBody.read { () throws(ConfigError) -> SyntheticResponse? in
                guard let status = try body.int("status", in: 200...599) else {
                    if let location = body.keyLocation("headers") ?? body.keyLocation("body") {
                        throw ConfigError(
                            "'headers' and 'body' need 'status' (the response to answer with)", at: location)
                    }
                    return nil
                }
                var headers: [(name: String, value: String)] = []
                if let object = try body.object("headers", context: "'headers'") {
                    for member in object.members {
                        headers.append((member.key, try member.value.string("header '\(member.key)'")))
                    }
                }
                let text = try body.string("body") ?? ""
                return SyntheticResponse(status: status, headers: headers, body: Array(text.utf8))
            }
        }
        let ended = try end(name, selection, with: .release(response))
        return .ok(ControlJSON.object(["released": .array(ended)]))
    }

    /// `POST /v1/holds/{name}/fail` with optional `{id, all}`: resets the held flows' client
    /// connections; `{failed: [holds]}`.
    func fail(_ name: String, _ request: ControlRequest) throws(ControlFailure) -> ControlReply {
        let body = try ControlBody.object(request, allowed: ["id", "all"], required: false)
        let ended = try end(name, try HoldSelection(body), with: .fail)
        return .ok(ControlJSON.object(["failed": .array(ended)]))
    }

    private func end(_ name: String, _ selection: HoldSelection, with outcome: HoldOutcome) throws(ControlFailure)
        -> [JSONValue]
    {
        let now = MonotonicInstant.now()
        let ended = runtime.holds.end(name: name, id: selection.id, all: selection.all, with: outcome)
        guard ended.isEmpty else { return ended.map { ControlJSON.hold($0, now: now) } }
        let held = runtime.holds.list()
        if let id = selection.id {
            throw ControlFailure(404, "no hold named '\(name)' with id \(id)")
        }
        var names: [String] = []
        for info in held where !names.contains(info.name) { names.append(info.name) }
        let listing = names.isEmpty ? "nothing is held" : "held now: " + names.joined(separator: ", ")
        throw ControlFailure(
            404, "no hold named '\(name)' (\(listing))", suggestion: ConfigError.nearest(to: name, in: names))
    }
}

/// Which holds of a name a release or fail ends: the oldest, the one with `id`, or `all`.
private struct HoldSelection {
    var id: UInt64?
    var all = false

    init(_ body: ConfigObjectReader?) throws(ControlFailure) {
        guard let body else { return }
        id = try ControlBody.read { () throws(ConfigError) in try body.int("id", in: 1...Int.max).map(UInt64.init) }
        all = try ControlBody.read { () throws(ConfigError) in try body.bool("all") ?? false }
    }
}
