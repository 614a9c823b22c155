/// Places the steps of imported entries in one order, as a trace would have them: each step's
/// time is the entry's `startedDateTime` plus the timings before it, and `seq` numbers follow
/// those times (ties in entry order, then step order), starting at 1.
extension HARImporter {
    enum Timeline {
        /// The steps of one entry, in the order they happen.
        private enum Step: Int, Comparable {
            case received, forwarded, responseReceived, responseEnded, delivered

            static func < (left: Step, right: Step) -> Bool { left.rawValue < right.rawValue }
        }

        /// The entries as exchanges, in the order their requests arrived.
        static func exchanges(of entries: [Entry]) -> [CapturedExchange] {
            guard let origin = entries.map(\.start.nanoseconds).min() else { return [] }
            var steps: [(at: Int64, entry: Int, step: Step)] = []
            for (index, entry) in entries.enumerated() {
                for (step, at) in times(of: entry) { steps.append((at, index, step)) }
            }
            steps.sort { ($0.at, $0.entry, $0.step) < ($1.at, $1.entry, $1.step) }
            var moments: [[Step: Moment]] = Array(repeating: [:], count: entries.count)
            for (position, step) in steps.enumerated() {
                moments[step.entry][step.step] = Moment(
                    // Exact in UInt64 whatever the span (a HAR may start one entry in 1683 and the next
                    // in 2026, more than Int64 nanoseconds hold).
                    seq: UInt64(position + 1), monoNanoseconds: UInt64(bitPattern: step.at &- origin),
                    wall: WallTime(nanoseconds: step.at).rfc3339)
            }
            return zip(entries, moments)
                .map { entry, moments in exchange(entry, moments) }
                .sorted { $0.received.seq < $1.received.seq }
        }

        /// Requests received and responses delivered (copies left out, as the loader does), in seq order.
        static func timeline(of exchanges: [CapturedExchange]) -> [TimelineEntry] {
            exchanges.filter { $0.duplicateOf == nil }
                .flatMap { exchange in
                    [TimelineEntry(.received(flow: exchange.flow), at: exchange.received)]
                        + (exchange.delivered.map { [TimelineEntry(.delivered(flow: exchange.flow), at: $0)] } ?? [])
                }
                .sorted { $0.at.seq < $1.at.seq }
        }

        /// When each step of `entry` happened, in nanoseconds since the epoch.
        private static func times(of entry: Entry) -> [(Step, Int64)] {
            let timings = entry.timings
            let start = entry.start.nanoseconds
            // Timings reach 10^12 ms each and a start 2262: past Int64's nanoseconds, a step stays
            // at the last one rather than trapping.
            func after(_ time: Int64, _ micros: Int64) -> Int64 {
                let (nanoseconds, scaled) = micros.multipliedReportingOverflow(by: 1000)
                let (sum, added) = time.addingReportingOverflow(nanoseconds)
                return scaled || added ? .max : sum
            }
            let forwarded = after(start, timings.beforeSend + timings.send)
            let responseReceived = after(forwarded, timings.wait)
            let ended = after(responseReceived, timings.receive)
            var times: [(Step, Int64)] = [(.received, start)]
            if entry.response != nil {
                times += [(.forwarded, forwarded), (.responseReceived, responseReceived)]
                if entry.response?.body != nil { times.append((.responseEnded, ended)) }
            }
            if entry.duplicateOf == nil { times.append((.delivered, ended)) }
            return times
        }

        private static func exchange(_ entry: Entry, _ moments: [Step: Moment]) -> CapturedExchange {
            // As in every capture, the body is the upstream request's: the client's request has
            // none (a capture file's request.received carries no content).
            var clientRequest = entry.request
            clientRequest.body = nil
            var exchange = CapturedExchange(
                flow: entry.flow, received: moments[.received]!, clientRequest: clientRequest)
            exchange.connection = entry.connection
            exchange.duplicateOf = entry.duplicateOf
            exchange.role = entry.role
            exchange.lineage = entry.lineage
            exchange.credentials = entry.credentials
            exchange.forwarded = moments[.forwarded]
            exchange.responseReceived = moments[.responseReceived]
            exchange.responseEnded = moments[.responseEnded]
            exchange.delivered = moments[.delivered]
            exchange.upstreamRequest = entry.response == nil ? nil : entry.request
            exchange.response = entry.response
            exchange.deliveredStatus = exchange.delivered == nil ? nil : entry.deliveredStatus
            exchange.synthetic = entry.synthetic
            return exchange
        }
    }
}
