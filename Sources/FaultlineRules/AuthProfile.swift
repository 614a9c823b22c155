/// Which requests are login, refresh and logout, and where credentials travel: the knowledge that
/// lets the proxy follow credential lineages from the wire alone (DESIGN.md §2).
public struct AuthProfile: Sendable, Equatable {
    public var login: FlowMatch?
    public var refresh: FlowMatch?
    public var logout: FlowMatch?
    /// User-named roles such as `callback`, checked after login, refresh and logout.
    public var roles: [(name: String, match: FlowMatch)]
    public var requestCredentials: [CredentialLocation]
    public var responseCredentials: [CredentialLocation]
    /// A header that identifies a business request across retries.
    public var idempotencyHeader: String?
    public var file: String

    public init(
        login: FlowMatch? = nil, refresh: FlowMatch? = nil, logout: FlowMatch? = nil,
        roles: [(name: String, match: FlowMatch)] = [], requestCredentials: [CredentialLocation] = [],
        responseCredentials: [CredentialLocation] = [], idempotencyHeader: String? = nil, file: String
    ) {
        self.login = login
        self.refresh = refresh
        self.logout = logout
        self.roles = roles
        self.requestCredentials = requestCredentials
        self.responseCredentials = responseCredentials
        self.idempotencyHeader = idempotencyHeader
        self.file = file
    }

    /// True when some request location reads the body (form or JSON field).
    public var readsRequestBodies: Bool {
        requestCredentials.contains { $0.place.isBody } || [login, refresh, logout].contains { $0?.body != nil }
            || roles.contains { $0.match.body != nil }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.login == rhs.login && lhs.refresh == rhs.refresh && lhs.logout == rhs.logout
            && lhs.roles.map(\.name) == rhs.roles.map(\.name) && lhs.roles.map(\.match) == rhs.roles.map(\.match)
            && lhs.requestCredentials == rhs.requestCredentials && lhs.responseCredentials == rhs.responseCredentials
            && lhs.idempotencyHeader == rhs.idempotencyHeader && lhs.file == rhs.file
    }
}

/// The kinds of credential a lineage holds.
public enum CredentialKind: String, Sendable, CaseIterable {
    case access
    case refresh
    case session
}

/// Where one credential travels.
public struct CredentialLocation: Sendable, Equatable {
    public enum Place: Sendable, Equatable {
        /// A header; with a scheme (`Bearer`), only values with that scheme count, and only the part after it.
        case header(name: String, scheme: String?)
        /// A cookie in the request's Cookie header.
        case cookie(String)
        /// A Set-Cookie in a response.
        case setCookie(String)
        /// An `application/x-www-form-urlencoded` body field.
        case form(String)
        /// An RFC 6901 pointer into a JSON body.
        case json(String)

        public var isBody: Bool {
            switch self {
            case .form, .json: return true
            case .header, .cookie, .setCookie: return false
            }
        }
    }

    public var place: Place
    public var kind: CredentialKind

    public init(_ place: Place, kind: CredentialKind) {
        self.place = place
        self.kind = kind
    }
}
