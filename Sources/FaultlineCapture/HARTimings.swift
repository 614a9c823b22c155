import FaultlineCore

/// The `timings` of one HAR entry (HAR 1.2 "timings"), in whole microseconds.
///
/// `send`, `wait` and `receive` must be known and never negative; `blocked`, `dns`, `connect`
/// and `ssl` may be unknown (written `-1`, nil here). The entry's `time` is the sum of the known
/// ones, where `ssl` is already part of `connect`.
struct HARTimings: Equatable {
    var blocked: Int64?
    var dns: Int64?
    var connect: Int64?
    var ssl: Int64?
    var send: Int64
    var wait: Int64
    var receive: Int64

    init(
        blocked: Int64? = nil, dns: Int64? = nil, connect: Int64? = nil, ssl: Int64? = nil, send: Int64, wait: Int64,
        receive: Int64
    ) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.ssl = ssl
        self.send = send
        self.wait = wait
        self.receive = receive
    }

    /// The phases of a recorded exchange, from its monotonic times: `send` from the request's
    /// arrival to its forwarding, `wait` until the upstream's head, `receive` until the client had
    /// the response. A step the exchange skipped ends its phase where the last one ended (a
    /// response the proxy made without an upstream is all `wait`). Faultline does not time
    /// queueing, DNS, connecting or TLS apart, so those are unknown.
    init(_ exchange: CapturedExchange) {
        let start = exchange.received.monoNanoseconds
        // Each step's offset from the start, in whole microseconds, so the phases add up to the
        // offsets exactly and an import puts every step back within a microsecond.
        func offset(_ moment: Moment?) -> Int64? {
            moment.map { $0.monoNanoseconds > start ? Int64(($0.monoNanoseconds - start) / 1000) : 0 }
        }
        let sendEnd = offset(exchange.forwarded) ?? 0
        let waitEnd = max(offset(exchange.responseReceived) ?? offset(exchange.delivered) ?? sendEnd, sendEnd)
        let receiveEnd = max(offset(exchange.delivered) ?? offset(exchange.responseEnded) ?? waitEnd, waitEnd)
        self.init(send: sendEnd, wait: waitEnd - sendEnd, receive: receiveEnd - waitEnd)
    }

    /// Time before the request went out: queueing, DNS and connecting (TLS included in `connect`).
    var beforeSend: Int64 { [blocked, dns, connect].reduce(0) { $0 + max($1 ?? 0, 0) } }

    /// The entry's `time`: the sum of every known phase.
    var total: Int64 { beforeSend + send + wait + receive }

    /// HAR's object, in milliseconds (`-1` for an unknown phase).
    var json: JSONValue {
        func milliseconds(_ micros: Int64?) -> JSONValue { micros.map(Self.milliseconds) ?? .int(-1) }
        return .fields([
            ("blocked", milliseconds(blocked)), ("dns", milliseconds(dns)), ("connect", milliseconds(connect)),
            ("send", milliseconds(send)), ("wait", milliseconds(wait)), ("receive", milliseconds(receive)),
            ("ssl", milliseconds(ssl)),
        ])
    }

    /// Microseconds as a number of milliseconds: `12.345`, or `12` when whole.
    static func milliseconds(_ micros: Int64) -> JSONValue {
        micros % 1000 == 0 ? .int(micros / 1000) : .number(Double(micros) / 1000)
    }
}

extension HARTimings {
    /// Reads an entry's `timings` (milliseconds). HAR 1.2 says `send`, `wait` and `receive` are
    /// never negative, yet some writers put `-1` there: that reads as 0, as does a missing one.
    /// Without `timings`, the entry's `time` is taken as all `wait`.
    init(reading timings: HARField?, time: HARField?) throws(CaptureLoadError) {
        guard let timings else {
            let total = try time.map { field throws(CaptureLoadError) in try Self.micros(field) } ?? 0
            self.init(send: 0, wait: max(total, 0), receive: 0)
            return
        }
        func known(_ key: String) throws(CaptureLoadError) -> Int64? {
            guard let field = timings.member(key) else { return nil }
            let micros = try Self.micros(field)
            return micros < 0 ? nil : micros
        }
        self.init(
            blocked: try known("blocked"), dns: try known("dns"), connect: try known("connect"), ssl: try known("ssl"),
            send: try known("send") ?? 0, wait: try known("wait") ?? 0, receive: try known("receive") ?? 0)
    }

    /// Milliseconds, rounded to whole microseconds.
    private static func micros(_ field: HARField) throws(CaptureLoadError) -> Int64 {
        let milliseconds = try field.number()
        guard abs(milliseconds) < 1e12 else { throw field.problem("\(milliseconds) ms is not a duration") }
        return Int64((milliseconds * 1000).rounded())
    }
}
