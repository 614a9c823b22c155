import FaultlineConfig

/// Decodes `auth-profile.json5` into an `AuthProfile`, collecting every error.
final class AuthProfileDecoder {
    static let profileKeys = [
        "$schema", "login", "refresh", "logout", "revoke", "roles", "credentials", "idempotencyHeader",
    ]
    /// Where requests present credentials.
    static let requestPlaces = ["header", "cookie", "form", "json"]
    /// Where responses issue them.
    static let responsePlaces = ["json", "setCookie", "header"]

    let file: String
    let diagnostics = LoaderDiagnostics()

    init(file: String) {
        self.file = file
    }

    func decode(_ bytes: [UInt8]) -> (AuthProfile?, [ConfigError]) {
        let root: ConfigNode
        do {
            root = try JSON5.parse(bytes, file: file)
        } catch {
            return (nil, [error])
        }
        guard
            let reader = diagnostics.object(
                root, name: "an auth profile", context: "the auth profile", allowed: Self.profileKeys)
        else {
            return (nil, diagnostics.sortedErrors)
        }
        var profile = AuthProfile(file: file)
        _ = diagnostics.optional { try reader.string("$schema") }
        let matches = FlowMatchDecoder(diagnostics: diagnostics, profile: .broken, use: .profile)
        let builtIn: [(String, WritableKeyPath<AuthProfile, [FlowMatch]>)] = [
            (FlowRole.login, \.login), (FlowRole.refresh, \.refresh), (FlowRole.logout, \.logout),
            (FlowRole.revoke, \.revoke),
        ]
        for (role, field) in builtIn {
            guard let node = reader.node(role) else { continue }
            profile[keyPath: field] = matchList(
                node, name: "'\(role)'", context: "'\(role)' of the auth profile", matches: matches)
        }
        if let rolesNode = reader.node("roles") { profile.roles = customRoles(rolesNode, matches: matches) }
        if let credentials = reader.node("credentials"),
            let credentialReader = diagnostics.object(
                credentials, name: "'credentials'", context: "'credentials' of the auth profile",
                allowed: ["request", "response"])
        {
            if let request = credentialReader.node("request") {
                profile.requestCredentials = locations(
                    request, name: "'request'", places: Self.requestPlaces,
                    roles: ProfileKnowledge.definedRoles(of: profile))
            }
            if let response = credentialReader.node("response") {
                profile.responseCredentials = locations(
                    response, name: "'response'", places: Self.responsePlaces, roles: nil)
            }
        }
        if let header = reader.node("idempotencyHeader") {
            profile.idempotencyHeader = diagnostics.attempt { try Self.headerName(header, name: "'idempotencyHeader'") }
        }
        let errors = diagnostics.sortedErrors
        return (errors.isEmpty ? profile : nil, errors)
    }

    /// `roles: { name: match or [match, ...] }`. Names may not reuse a built-in role (the proxy
    /// checks login, refresh, logout and revoke first and calls everything else business) and
    /// must fit in an event reference (`callback.forwarded`), so only letters, digits, `-` and `_`.
    private func customRoles(_ node: ConfigNode, matches: FlowMatchDecoder) -> [ProfileRole] {
        guard diagnostics.object(node, name: "'roles'", context: "'roles'", allowed: nil) != nil else { return [] }
        var roles: [ProfileRole] = []
        for member in node.members ?? [] {
            let name = member.key
            if ProfileKnowledge.builtInRoles.contains(name) {
                let hint =
                    name == "business"
                    ? "every request no role matches is 'business'" : "define it with the top-level '\(name)' key"
                diagnostics.report(
                    "role '\(name)' is built in and cannot be redefined in 'roles': \(hint)", at: member.keyLocation)
                continue
            }
            let allowed = name.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
            guard !name.isEmpty, allowed else {
                diagnostics.report(
                    "role name '\(name)' may only use letters, digits, '-' and '_'", at: member.keyLocation)
                continue
            }
            let list = matchList(member.value, name: "role '\(name)'", context: "role '\(name)'", matches: matches)
            roles.append(ProfileRole(name: name, matches: list))
        }
        return roles
    }

    /// A role's value: one match object, or a non-empty list of them (any of which gives the
    /// role). Entries of a list are named by number in messages about their keys.
    private func matchList(
        _ node: ConfigNode, name: String, context: String, matches: FlowMatchDecoder
    ) -> [FlowMatch] {
        let expected = "a match object or a non-empty list of them"
        switch node.kind {
        case .object:
            return [matches.decode(node, name: name, context: context)]
        case .array(let elements) where !elements.isEmpty:
            return elements.enumerated().map { offset, element in
                matches.decode(
                    element, name: "each entry of \(name)", context: "entry \(offset + 1) of \(context)")
            }
        default:
            diagnostics.report(ConfigError.mismatch(name, expected: expected, found: node))
            return []
        }
    }

    /// `roles`: the role names a request location may be limited to; nil for response
    /// locations, which cannot be.
    private func locations(_ node: ConfigNode, name: String, places: [String], roles: [String]?) -> [CredentialLocation]
    {
        guard let elements = diagnostics.attempt({ try node.array(name) }) else { return [] }
        return elements.compactMap { location($0, list: name, places: places, roles: roles) }
    }

    /// `{ <place>: "name", kind, scheme?, roles? }` with exactly one place key.
    private func location(_ node: ConfigNode, list: String, places: [String], roles: [String]?) -> CredentialLocation? {
        let context = "a credential location in \(list)"
        guard
            let reader = diagnostics.object(
                node, name: "each entry of \(list)", context: context,
                allowed: places + ["kind", "scheme", "roles"])
        else { return nil }
        let given = reader.members.filter { places.contains($0.key) }
        let placeList = ConfigNode.listWording(places.map { "'\($0)'" }, conjunction: "or")
        guard let place = given.first else {
            diagnostics.report("\(context) needs one of \(placeList)", at: node.location)
            return nil
        }
        for extra in given.dropFirst() {
            diagnostics.report(
                "\(context) takes exactly one of \(placeList); found '\(place.key)' and '\(extra.key)'",
                at: extra.keyLocation)
        }
        let kind = diagnostics.attempt {
            try reader.requiredNode("kind").choice("'kind'", of: CredentialKind.allCases.map(\.rawValue))
        }
        let scheme = diagnostics.optional {
            try reader.node("scheme").map { node throws(ConfigError) in try node.nonEmptyString("'scheme'") }
        }
        if place.key != "header", let schemeKey = reader.keyLocation("scheme") {
            diagnostics.report("'scheme' applies only to a 'header' location", at: schemeKey)
        }
        let limited = reader.member("roles").flatMap { member in
            limitingRoles(member, known: roles)
        }
        let value = place.value
        let decoded: CredentialLocation.Place? = diagnostics.attempt {
            switch place.key {
            case "header": return .header(name: try Self.headerName(value, name: "'header'"), scheme: scheme)
            case "cookie": return .cookie(try Self.cookieName(value, name: "'cookie'"))
            case "setCookie": return .setCookie(try Self.cookieName(value, name: "'setCookie'"))
            case "form": return .form(try value.nonEmptyString("'form'"))
            case "json": return .json(try ConfigNode.pointer(try value.string("'json'"), at: value.location))
            default: preconditionFailure("unlisted credential place '\(place.key)'")
            }
        }
        guard let decoded, let kind, let credentialKind = CredentialKind(rawValue: kind) else { return nil }
        return CredentialLocation(decoded, kind: credentialKind, roles: limited)
    }

    /// A request location's `roles: ["revoke", ...]`: each a role this profile defines (or
    /// `business`). `known` is nil for response locations, where a role limit means nothing (the
    /// response issues what it issues).
    private func limitingRoles(_ member: ConfigNode.Member, known: [String]?) -> [String]? {
        guard let known else {
            diagnostics.report(
                "'roles' applies only to a location in 'request': a response's credentials count whatever its role",
                at: member.keyLocation)
            return nil
        }
        guard let names = diagnostics.attempt({ try member.value.stringOrList("'roles'") }) else { return nil }
        let listed = known.map { "'\($0)'" }.joined(separator: ", ")
        for (name, element) in names where !known.contains(name) {
            let problem =
                ProfileKnowledge.builtInRoles.contains(name)
                ? "role '\(name)', which this profile does not define"
                : "unknown role '\(name)'\(ConfigError.didYouMean(name, in: known))"
            diagnostics.report("'roles' names \(problem); this profile defines \(listed)", at: element.location)
        }
        return names.map(\.0)
    }

    static func headerName(_ node: ConfigNode, name: String) throws(ConfigError) -> String {
        let header = try node.string(name)
        guard WireSyntax.isToken(header) else {
            throw ConfigError.mismatch(name, expected: "a header name (RFC 9110 §5.1: a token)", found: node)
        }
        return header
    }

    static func cookieName(_ node: ConfigNode, name: String) throws(ConfigError) -> String {
        let cookie = try node.string(name)
        guard WireSyntax.isToken(cookie) else {
            throw ConfigError.mismatch(name, expected: "a cookie name (RFC 6265 §4.1.1: a token)", found: node)
        }
        return cookie
    }
}
