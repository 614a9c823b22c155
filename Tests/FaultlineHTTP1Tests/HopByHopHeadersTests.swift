import Testing

@testable import FaultlineHTTP1

@Suite struct HopByHopHeadersTests {
    /// One section and what of it is forwarded.
    struct Case: Sendable, CustomTestStringConvertible {
        let fields: [(String, String)]
        let kept: [(String, String)]
        var testDescription: String { fields.map(\.0).joined(separator: ",") }
    }

    @Test func aSectionWithoutHopByHopFieldsIsKeptAsItIs() {
        let headers: HTTPHeaders = [("Host", "a"), ("Accept", "*/*"), ("Authorization", "Bearer x")]
        #expect(HopByHopHeaders.removing(from: headers) == headers)
    }

    /// RFC 9110 §7.6.1: the always-connection-specific fields and those `Connection` names go,
    /// wherever they stand; everything else stays in order, names as written.
    @Test(arguments: [
        Case(
            fields: [("Connection", "close"), ("Host", "a"), ("Accept", "*/*")],
            kept: [("Host", "a"), ("Accept", "*/*")]),
        Case(
            fields: [("Host", "a"), ("keep-alive", "timeout=5"), ("Accept", "*/*")],
            kept: [("Host", "a"), ("Accept", "*/*")]),
        Case(
            fields: [("Host", "a"), ("Accept", "*/*"), ("Transfer-Encoding", "chunked")],
            kept: [("Host", "a"), ("Accept", "*/*")]),
        Case(
            fields: [
                ("X-A", "1"), ("Connection", "X-Secret, x-other"), ("x-secret", "s"), ("X-B", "2"), ("X-Other", "o"),
            ],
            kept: [("X-A", "1"), ("X-B", "2")]),
        Case(
            fields: [
                ("TE", "trailers"), ("Proxy-Authorization", "Basic x"), ("Content-Length", "3"), ("Upgrade", "h2c"),
            ],
            kept: []),
    ])
    func hopByHopFieldsGoWhereverTheyStand(section: Case) {
        #expect(HopByHopHeaders.removing(from: HTTPHeaders(section.fields)) == HTTPHeaders(section.kept))
    }

    /// Each always-removed name, in any case, goes; names one letter or one length away stay.
    @Test func everyConnectionSpecificNameIsRemovedInAnyCase() {
        let removed = [
            "Connection", "PROXY-CONNECTION", "keep-alive", "Te", "Transfer-Encoding", "upgrade", "Trailer",
            "Proxy-Authorization", "proxy-authenticate", "Proxy-Authentication-Info", "content-LENGTH",
        ]
        let kept = [
            "Connections", "Proxy-Connectio", "Keep-Alivf", "T", "Tea", "Transfer-Encodings", "Upgraded", "Trailers",
            "Proxy-Authorizatio", "Proxy-Authenticator", "Proxy-Authentication-Inf", "Content-Type", "X-Upgrade",
        ]
        let section = HTTPHeaders(removed.map { ($0, "v") } + kept.map { ($0, "v") })
        #expect(HopByHopHeaders.removing(from: section).fields.map(\.name) == kept)
    }
}
