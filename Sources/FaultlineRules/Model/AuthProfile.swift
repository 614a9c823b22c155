/// Which requests are login, refresh, logout and revocation, and where credentials travel: the
/// knowledge that lets the proxy follow credential lineages from the wire alone (README "The auth
/// profile", Rules/README.md).
///
/// Every role holds a list of matches, any of which gives a request the role (an app that logs
/// out at two endpoints, or logs in by password and by SSO); an empty list means the profile does
/// not define that role.
public struct AuthProfile: Sendable, Equatable {
    public var login: [FlowMatch]
    public var refresh: [FlowMatch]
    public var logout: [FlowMatch]
    /// RFC 7009 token revocation: the request's `token` form field is presented as a credential
    /// without a credential location for it (see `LineageTracker`).
    public var revoke: [FlowMatch]
    /// User-named roles such as `callback`, checked after the built-in ones, in file order.
    public var roles: [ProfileRole]
    public var requestCredentials: [CredentialLocation]
    public var responseCredentials: [CredentialLocation]
    /// A header that identifies a business request across retries.
    public var idempotencyHeader: String?
    public var file: String

    public init(
        login: [FlowMatch] = [], refresh: [FlowMatch] = [], logout: [FlowMatch] = [], revoke: [FlowMatch] = [],
        roles: [ProfileRole] = [], requestCredentials: [CredentialLocation] = [],
        responseCredentials: [CredentialLocation] = [], idempotencyHeader: String? = nil, file: String
    ) {
        self.login = login
        self.refresh = refresh
        self.logout = logout
        self.revoke = revoke
        self.roles = roles
        self.requestCredentials = requestCredentials
        self.responseCredentials = responseCredentials
        self.idempotencyHeader = idempotencyHeader
        self.file = file
    }

    /// The roles the profile defines, in the order the proxy tries them: `login`, `refresh`,
    /// `logout`, `revoke`, then the custom roles. Built-in roles without a match are left out;
    /// `business` (every other request) is not listed.
    public var orderedRoles: [ProfileRole] {
        let builtIn = [
            ProfileRole(name: FlowRole.login, matches: login), ProfileRole(name: FlowRole.refresh, matches: refresh),
            ProfileRole(name: FlowRole.logout, matches: logout), ProfileRole(name: FlowRole.revoke, matches: revoke),
        ]
        return builtIn.filter { !$0.matches.isEmpty } + roles
    }

    /// True when requests must be read whole before they are classified: a request location reads
    /// the body (form or JSON field), a role matches on the body, or revocations are followed
    /// (their token is a form field, RFC 7009 §2.1).
    public var readsRequestBodies: Bool {
        requestCredentials.contains { $0.place.isBody } || !revoke.isEmpty
            || orderedRoles.contains { role in role.matches.contains { $0.body != nil } }
    }
}

/// One role of the auth profile: its name and the matches that give a request that role.
public struct ProfileRole: Sendable, Equatable {
    public var name: String
    /// Any of them matching gives the request this role.
    public var matches: [FlowMatch]

    public init(name: String, matches: [FlowMatch]) {
        self.name = name
        self.matches = matches
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
    /// For request locations: the roles whose requests present a credential here; nil means
    /// every role (a revocation that authenticates with the app's Bearer token need not count it).
    public var roles: [String]?

    public init(_ place: Place, kind: CredentialKind, roles: [String]? = nil) {
        self.place = place
        self.kind = kind
        self.roles = roles
    }

    /// True when a request with this role presents credentials at this location.
    public func applies(toRole role: String) -> Bool {
        roles?.contains(role) ?? true
    }
}

extension AuthProfile {
    /// Header names (other than Authorization and cookies) and body field names where this
    /// profile says credentials travel: the trace fingerprints those headers, and a capture
    /// replaces those fields in the bodies it keeps. A JSON pointer gives its last member name.
    public var secretFieldNames: (headers: [String], bodyFields: [String]) {
        var headers: [String] = []
        var fields: [String] = []
        for location in requestCredentials + responseCredentials {
            switch location.place {
            case .header(let name, _): if !headers.contains(name) { headers.append(name) }
            case .form(let name): if !fields.contains(name) { fields.append(name) }
            case .json(let pointer):
                // RFC 6901 §4: `~1` is `/` and `~0` is `~` in a reference token.
                if let last = pointer.split(separator: "/").last {
                    let name = String(last.replacing("~1", with: "/").replacing("~0", with: "~"))
                    if !fields.contains(name) { fields.append(name) }
                }
            case .cookie, .setCookie: break
            }
        }
        return (headers, fields)
    }
}
