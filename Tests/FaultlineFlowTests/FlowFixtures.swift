import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import Testing

/// Requests, responses and rule sets for the flow core's tests, as the framing layer and the rules
/// folder would hand them over.
enum FlowFixtures {
    /// A request for `url` (`http://host[:port]/path[?query]`), as HTTP/1.1 sends it: `Host` first,
    /// then `headers`. `body` says how long the body is; the bytes come with `requestBody`.
    static func request(
        _ method: String = "GET", _ url: String, headers: [(String, String)] = [], body: FlowBodyLength = .none,
        kind: FlowKind = .exchange
    ) -> FlowRequest {
        let parts = url.split(separator: "://", maxSplits: 1)
        let scheme = String(parts[0])
        let rest = parts[1]
        let authority = rest.prefix { $0 != "/" }
        let target = rest[authority.endIndex...].isEmpty ? "/" : String(rest[authority.endIndex...])
        let endpoint = try! UpstreamEndpoint(url: "\(scheme)://\(authority)")
        let path: String
        let query: String?
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
        return FlowRequest(
            kind: kind, method: method, endpoint: endpoint, path: path, query: query,
            outboundTarget: endpoint.pathPrefix + target, url: url, version: "HTTP/1.1",
            headers: HTTPHeaders([("Host", String(authority))] + headers), authority: endpoint.hostHeaderValue,
            body: body)
    }

    static func get(_ url: String = "http://api.test/v1/me", headers: [(String, String)] = []) -> FlowRequest {
        request("GET", url, headers: headers)
    }

    /// A POST whose body of `length` bytes follows (a `Content-Length` request).
    static func post(_ url: String = "http://api.test/jobs", length: Int, headers: [(String, String)] = [])
        -> FlowRequest
    {
        request(
            "POST", url, headers: [("Content-Length", String(length))] + headers, body: .known(Int64(length)))
    }

    /// A response head from the upstream.
    static func head(_ status: Int, _ headers: [(String, String)] = []) -> HTTPResponseHead {
        HTTPResponseHead(status: status, reason: HTTPReasonPhrase.standard(for: status), headers: HTTPHeaders(headers))
    }

    /// A scenario file `s.json5` (scenario `s`) holding `rules`, the text inside `rules: [ ... ]`.
    static func ruleSet(_ rules: String, profile: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        -> RuleSet
    {
        var loadedProfile: AuthProfile?
        if let profile {
            let (value, errors) = RuleSetLoader.loadProfile(text: profile, file: "auth-profile.json5")
            #expect(errors.isEmpty, "\(errors)", sourceLocation: sourceLocation)
            loadedProfile = value
        }
        let (scenario, errors) = RuleSetLoader.loadScenario(
            text: "{ rules: [\(rules)] }", file: "s.json5", profile: loadedProfile)
        #expect(errors.isEmpty, "\(errors)", sourceLocation: sourceLocation)
        return RuleSet(scenarios: scenario.map { [$0] } ?? [], profile: loadedProfile)
    }

    /// A profile where `POST /oauth/token` is a login that issues `/access_token`, and Bearer
    /// tokens are presented in `Authorization`.
    static let loginProfile = """
        {
          login: { method: "POST", path: "/oauth/token" },
          credentials: {
            request: [{ header: "Authorization", scheme: "Bearer", kind: "access" }],
            response: [{ json: "/access_token", kind: "access" }],
          },
        }
        """
}

/// Runs of lines that many sequences share, so a test lists what is particular to it.
enum Lines {
    /// A rule of scenario `s` firing: its trace event, then the action holds wait on.
    static func fired(_ rule: String, phase: String = "request") -> [String] {
        ["trace rule.fired rule=s/\(rule) phase=\(phase)", "fired s/\(rule)"]
    }

    /// A bodiless GET going upstream to `http://api.test:80`.
    static let sendGet = ["open http://api.test:80", "send head GET /v1/me", "send end"]

    /// The whole request is on a connected upstream: the response deadline starts.
    static func forwarded(body: Int = 0) -> [String] {
        ["trace request.forwarded body=\(body)", "arm responseHead 60s"]
    }

    /// The upstream's head arrived: its deadline is cancelled and the head traced.
    static func responded(_ status: Int = 200) -> [String] {
        ["cancel responseHead", "trace response.received status=\(status)"]
    }

    /// The upstream's head arrived on a flow with response rules: its deadline is cancelled, the
    /// rules are asked, and the head traced once they answered.
    static func respondedByRules(_ status: Int = 200) -> [String] {
        ["cancel responseHead", "decide response \(status)", "trace response.received status=\(status)"]
    }

    /// The rules were asked about the request and found it a business request.
    static let decidedBusiness = ["decide request", "trace request.received role=business"]

    /// The client has the whole upstream response; the upstream goes back to the pool.
    static func delivered(_ status: Int = 200, body: Int) -> [String] {
        ["client end", "trace response.delivered status=\(status) body=\(body)", "release upstream", "ended finished"]
    }
}
