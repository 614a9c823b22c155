/// The `Via` field value this proxy adds to what it forwards (RFC 9110 §7.6.3): the protocol
/// the message was received with, then the proxy's pseudonym, as in `1.1 faultline`.
///
/// Made once per configuration, with the HTTP/1.1 value ready: every forwarded request and
/// response carries one, nearly all of them received over HTTP/1.1, and putting the value
/// together each time cost about 1,000 instructions per message.
public struct ViaField: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The name this proxy goes by in `Via`; a request that already carries it is a loop.
    public let pseudonym: String
    private let receivedWithHTTP11: String

    public init(pseudonym: String) {
        self.pseudonym = pseudonym
        receivedWithHTTP11 = "1.1 " + pseudonym
    }

    public init(stringLiteral pseudonym: String) {
        self.init(pseudonym: pseudonym)
    }

    /// The value for a message received with `receivedProtocol` (`1.1`, `2`).
    public func value(receivedProtocol: String) -> String {
        receivedProtocol == "1.1" ? receivedWithHTTP11 : receivedProtocol + " " + pseudonym
    }
}
