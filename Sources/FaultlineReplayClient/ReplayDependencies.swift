import FaultlineCapture
import FaultlineHTTP1

/// Which earlier requests each request of a replay waits for, worked out in recorded order:
///
/// - the one whose answer issued a credential it presents, so it carries the live value (not
///   for values the user supplied, which need no issuer);
/// - across connections, the recorded order between a request and an exchange that changes
///   credentials (a login, refresh, logout or revocation, or an answer that sets cookies) when
///   both touch the same credential or lineage and one ended before the other began: a request
///   sent after a logout must not overtake it, nor a refresh a request it followed.
///
/// Requests that merely use the same session keep the concurrency they had. Every dependency
/// points to an earlier request, so lanes never wait on each other in a circle.
struct ReplayDependencies {
    private let credentials: CredentialMap
    /// Recorded credential → the number of the last request whose answer issued it.
    private var issuer: [String: Int] = [:]
    /// Per request so far: the credentials and lineage it touched, whether it changes
    /// credentials, and when (trace `seq`) its answer ended.
    private var touched: [Set<String>] = []
    private var changesCredentials: [Bool] = []
    private var answerEnds: [UInt64?] = []

    init(credentials: CredentialMap) {
        self.credentials = credentials
    }

    /// Adds the next request (`exchange`, sent as `request`, whose recorded answer issued
    /// `issued`) and returns the numbers of the requests it waits for, ascending.
    mutating func add(_ exchange: CapturedExchange, request: CapturedRequest, issued: [CredentialSite]) -> [Int] {
        let number = touched.count + 1
        let presented = CredentialMap.occurrences(
            of: Set(issuer.keys), in: request.searchableBytes, findsPseudonyms: credentials.findsPseudonyms)
        var waitsFor = Set(presented.compactMap { issuer[$0.recorded] })
        var touches = Set(presented.map(\.recorded)).union(issued.map(\.value))
        if let lineage = exchange.lineage { touches.insert("lineage " + lineage) }
        let changes = exchange.changesCredentials
        for earlier in touched.indices where changes || changesCredentials[earlier] {
            guard let ended = answerEnds[earlier], ended < exchange.received.seq,
                !touched[earlier].isDisjoint(with: touches)
            else { continue }
            waitsFor.insert(earlier + 1)
        }
        for site in issued where credentials.liveValues[site.value] == nil { issuer[site.value] = number }
        touched.append(touches)
        changesCredentials.append(changes)
        answerEnds.append(exchange.answerEnd?.seq)
        return waitsFor.sorted()
    }
}

extension CapturedExchange {
    /// The auth profile's roles that change which credentials are valid (README "Faults: rule files").
    static let credentialRoles: Set<String> = ["login", "refresh", "logout", "revoke"]

    /// Whether this exchange changes credentials: a role that does, or an answer that sets cookies
    /// (all a capture recorded without an auth profile can tell).
    var changesCredentials: Bool {
        role.map(Self.credentialRoles.contains) == true || response?.headers.contains(name: "set-cookie") == true
    }

    /// When its client had the answer; nil when none came.
    var answerEnd: Moment? { delivered ?? responseReceived }
}

extension CapturedRequest {
    /// Target, header values and body in one buffer, for finding the credentials it presents.
    var searchableBytes: [UInt8] {
        var bytes = Array(url.target.utf8)
        for field in headers {
            bytes.append(0x0A)
            bytes += field.value.utf8
        }
        bytes.append(0x0A)
        bytes += body?.bytes ?? []
        return bytes
    }
}
