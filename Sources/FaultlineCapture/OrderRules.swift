/// `faultline rules from-capture`: a scenario file of holds that makes a live backend answer in
/// the order a capture recorded.
///
/// For each recorded response during whose flight another flow's request arrived, another
/// response was delivered or a mark was written, the response is held until the last of those
/// steps before its recorded delivery happens again: the race, staged by rules instead of luck.
/// A step of a request whose role the auth profile named (`logout`, `refresh`...) is referred to
/// as `<role>.received` or `<role>.delivered`; any other request gets a marker rule (`delay: 0`,
/// which changes nothing): its request is `rule:NAME` (the rule fires as the request arrives),
/// its response `delivered:NAME` (sent to the client; the rule fired earlier, when the response's
/// head reached the proxy, and releasing then would race the two deliveries). Requests are told
/// apart by method, path and occurrence (`nth`). Every hold has a deadline, so a run that goes
/// another way still ends.
public enum OrderRules {
    /// The scenario file text (JSON5) for `capture`, with a header comment saying where it came
    /// from; `holdTimeout` is each hold's deadline in seconds.
    public static func scenario(from capture: Capture, holdTimeout: Int = 10) -> (text: String, holds: Int) {
        let exchanges = capture.answeredExchanges.filter { $0.delivered != nil }
        let byFlow = Dictionary(uniqueKeysWithValues: exchanges.map { ($0.flow, $0) })
        let occurrence = occurrences(exchanges)
        var rules: [String] = []
        var markers: [Int64: (request: String?, response: String?)] = [:]
        var holds = 0
        func name(_ exchange: CapturedExchange) -> String {
            let request = exchange.upstreamRequest!
            let path = request.url.path.split(separator: "/").joined(separator: "-")
            return "\(request.method.lowercased())-\(path.isEmpty ? "root" : path)-\(occurrence[exchange.flow]!)"
        }
        func reference(for step: TimelineEntry) -> String? {
            switch step.kind {
            case .mark(let label): return "mark:\(label)"
            case .received(let flow), .delivered(let flow):
                guard let other = byFlow[flow] else { return nil }
                let isReceived: Bool
                if case .received = step.kind { isReceived = true } else { isReceived = false }
                if let role = other.role, role != "business", isUnique(role: role, among: exchanges) {
                    return "\(role).\(isReceived ? "received" : "delivered")"
                }
                let marker = "seen-\(name(other))-\(isReceived ? "request" : "response")"
                var entry = markers[flow] ?? (nil, nil)
                if isReceived { entry.request = marker } else { entry.response = marker }
                markers[flow] = entry
                return isReceived ? "rule:\(marker)" : "delivered:\(marker)"
            }
        }
        for exchange in exchanges {
            let start = exchange.received.seq
            let end = exchange.delivered!.seq
            let during = capture.timeline.filter { step in
                guard step.at.seq > start, step.at.seq < end else { return false }
                switch step.kind {
                case .received(let flow), .delivered(let flow): return flow != exchange.flow && byFlow[flow] != nil
                case .mark: return true
                }
            }
            guard let last = during.last, let releaseOn = reference(for: last) else { continue }
            holds += 1
            let request = exchange.upstreamRequest!
            rules.append(
                """
                    {
                      // Recorded flow \(exchange.flow): delivered after \(describe(last, byFlow)).
                      name: "hold-\(name(exchange))", phase: "response",
                      match: { method: \(quoted(request.method)), path: \(quoted(request.url.path)) }, when: { nth: \(occurrence[exchange.flow]!) },
                      actions: [{ hold: { name: "order-\(name(exchange))", release: { on: \(quoted(releaseOn)) }, timeout: \(holdTimeout), onTimeout: "release" } }],
                    },
                """)
        }
        for exchange in exchanges {
            guard let marker = markers[exchange.flow] else { continue }
            let request = exchange.upstreamRequest!
            for (phase, ruleName) in [("request", marker.request), ("response", marker.response)] {
                guard let ruleName else { continue }
                rules.append(
                    """
                        {
                          // Marks recorded flow \(exchange.flow)'s \(phase) for the holds above (a delay of 0 changes nothing).
                          name: \(quoted(ruleName)), phase: "\(phase)",
                          match: { method: \(quoted(request.method)), path: \(quoted(request.url.path)) }, when: { nth: \(occurrence[exchange.flow]!) },
                          actions: [{ delay: 0 }],
                        },
                    """)
            }
        }
        let text = """
            // Generated by `faultline rules from-capture` from \(capture.source).
            //
            // Replays the order in which the capture's responses were delivered against a live
            // backend: each response that was delivered after other requests, responses or marks
            // happened during its flight is held until the last of them happens again (each hold
            // gives up after \(holdTimeout) s and lets the response through). \(holds) hold(s).
            // Put this file in a rules folder next to the auth profile the capture was made with
            // and run `faultline run --rules FOLDER`.
            {
              description: "The order of \(escaped(capture.source)), staged by holds.",
              rules: [
            \(rules.joined(separator: "\n"))
              ],
            }

            """
        return (text, holds)
    }

    /// 1-based position of each exchange among recorded ones with its method and path (a rule's `nth`).
    private static func occurrences(_ exchanges: [CapturedExchange]) -> [Int64: Int] {
        var counts: [String: Int] = [:]
        var result: [Int64: Int] = [:]
        for exchange in exchanges.sorted(by: { $0.received.seq < $1.received.seq }) {
            let request = exchange.upstreamRequest!
            let key = "\(request.method) \(request.url.path)"
            counts[key, default: 0] += 1
            result[exchange.flow] = counts[key]
        }
        return result
    }

    private static func isUnique(role: String, among exchanges: [CapturedExchange]) -> Bool {
        exchanges.filter { $0.role == role }.count == 1
    }

    private static func describe(_ step: TimelineEntry, _ byFlow: [Int64: CapturedExchange]) -> String {
        switch step.kind {
        case .mark(let label): return "mark '\(label)'"
        case .received(let flow):
            return
                "the request of flow \(flow) (\(byFlow[flow].map { "\($0.upstreamRequest!.method) \($0.upstreamRequest!.url.path)" } ?? "?")) arrived"
        case .delivered(let flow):
            return
                "the response of flow \(flow) (\(byFlow[flow].map { "\($0.upstreamRequest!.method) \($0.upstreamRequest!.url.path)" } ?? "?")) was delivered"
        }
    }

    private static func quoted(_ text: String) -> String { "\"\(escaped(text))\"" }

    private static func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: " ")
    }
}
