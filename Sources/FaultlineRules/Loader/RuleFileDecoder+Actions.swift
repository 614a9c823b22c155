import FaultlineConfig
import FaultlineCore

/// An action as written: the model value plus what phase checks and error messages need.
struct DecodedAction {
    /// The model value; for a `rewrite`, its response form until the phase is known.
    let action: RuleAction
    /// The action key (`respond`, `fault`...).
    let name: String
    let keyLocation: SourceLocation
    /// Set when the action only makes sense on a response: how messages name it.
    let responseOnly: String?
    /// For a `rewrite`: what was written, which the rule's phase turns into `.rewrite` or
    /// `.rewriteRequest`.
    var rewrite: RewriteDraft?

    /// The model value in a rule of `phase`.
    func action(in phase: RulePhase) -> RuleAction {
        guard let rewrite else { return action }
        return phase == .request ? .rewriteRequest(rewrite.request) : .rewrite(rewrite.response)
    }
}

/// The `actions` list: objects with exactly one key each.
extension RuleFileDecoder {
    static let actionNames = [
        "respond", "rateLimit", "rewrite", "route", "hold", "setCookie", "stripCookie", "duplicate", "delay",
        "throttle", "fault",
    ]
    static let faultKinds = [
        "reset", "close-before-response", "close-mid-body", "truncate", "stall", "malformed-chunk", "goaway",
    ]
    /// `lastStream` of a `goaway` fault: which stream its GOAWAY names as the last processed.
    static let goAwayLastStreams = ["previous", "this"]
    /// Faults that break a response that is being delivered, so they need the response phase.
    static let responseOnlyFaults = ["close-mid-body", "truncate", "malformed-chunk"]
    /// Stall length when `fault: "stall"` gives no `seconds`.
    static let defaultStall = Duration.seconds(30)

    func actions(_ node: ConfigNode) -> [DecodedAction] {
        guard let elements = diagnostics.attempt({ try node.array("'actions'") }) else { return [] }
        var decoded: [DecodedAction] = []
        for element in elements {
            guard case .object(let members) = element.kind else {
                diagnostics.report(
                    ConfigError.mismatch(
                        "each action", expected: "an object with one key, such as { delay: 1 }", found: element))
                continue
            }
            guard let member = members.first else {
                diagnostics.report(
                    "an action object needs one key: \(Self.actionNames.joined(separator: ", "))", at: element.location)
                continue
            }
            if members.count > 1 {
                diagnostics.report(
                    "an action object holds exactly one action; put '\(members[1].key)' in an object of its own",
                    at: members[1].keyLocation)
            }
            guard Self.actionNames.contains(member.key) else {
                let suggestion = ConfigError.didYouMean(member.key, in: Self.actionNames)
                let known =
                    suggestion.isEmpty ? "; actions are \(Self.actionNames.joined(separator: ", "))" : suggestion
                diagnostics.report("unknown action '\(member.key)'\(known)", at: member.keyLocation)
                continue
            }
            if member.key == "rewrite" {
                if let draft = rewrite(member.value) {
                    decoded.append(
                        DecodedAction(
                            action: .rewrite(draft.response), name: member.key, keyLocation: member.keyLocation,
                            responseOnly: nil, rewrite: draft))
                }
            } else if let action = action(member.key, member.value) {
                decoded.append(
                    DecodedAction(
                        action: action, name: member.key, keyLocation: member.keyLocation,
                        responseOnly: responseOnlyName(action, member.key)))
            }
        }
        return decoded
    }

    private func action(_ name: String, _ value: ConfigNode) -> RuleAction? {
        switch name {
        case "respond": return respond(value).map(RuleAction.respond)
        case "rateLimit": return rateLimit(value).map(RuleAction.respond)
        case "route": return route(value).map(RuleAction.route)
        case "hold": return hold(value).map(RuleAction.hold)
        case "setCookie": return diagnostics.attempt { .setCookie(try setCookie(value)) }
        case "stripCookie": return diagnostics.attempt { .stripCookie(try stripCookie(value)) }
        case "duplicate": return duplicate(value).map(RuleAction.duplicate)
        case "delay": return diagnostics.attempt { .delay(try value.seconds("'delay'")) }
        case "throttle":
            return diagnostics.attempt {
                .throttle(
                    bytesPerSecond: try value.int(
                        "'throttle'", in: 1...Int.max, expected: "a positive integer (bytes per second)"))
            }
        case "fault": return fault(value).map { RuleAction.fault($0.fault, code: $0.code) }
        default: preconditionFailure("action '\(name)' is not decoded here (a rewrite is a RewriteDraft first)")
        }
    }

    /// A `rewrite` is not listed: its keys say which phase it needs (RuleFileDecoder+Phase.swift).
    private func responseOnlyName(_ action: RuleAction, _ name: String) -> String? {
        switch action {
        case .setCookie, .stripCookie: return "'\(name)'"
        case .fault(let fault, _):
            switch fault {
            case .closeMidBody: return "fault 'close-mid-body'"
            case .truncate: return "fault 'truncate'"
            case .malformedChunk: return "fault 'malformed-chunk'"
            case .reset, .closeBeforeResponse, .stall, .goAway: return nil
            }
        case .respond, .rewrite, .rewriteRequest, .route, .hold, .duplicate, .delay, .throttle: return nil
        }
    }

    private func hold(_ node: ConfigNode) -> HoldSpec? {
        let keys = ["name", "release", "timeout", "onTimeout"]
        guard let reader = diagnostics.object(node, name: "'hold'", context: "'hold'", allowed: keys) else {
            return nil
        }
        var hold = HoldSpec(name: "")
        if let name = diagnostics.attempt({ try reader.requiredNode("name").nonEmptyString("'name'") }) {
            hold.name = name
        }
        if let releaseNode = reader.node("release"),
            let release = diagnostics.object(
                releaseNode, name: "'release'", context: "'release' of 'hold'", allowed: ["on"]),
            let on = diagnostics.attempt({ try release.requiredNode("on") })
        {
            hold.releaseOn = diagnostics.attempt { try eventReference(on, name: "'on'") }
        }
        if let timeout = reader.node("timeout") {
            hold.timeout = diagnostics.attempt { try timeout.seconds("'timeout'") }
        }
        if let member = reader.member("onTimeout") {
            if reader.node("timeout") == nil {
                diagnostics.report(
                    "'onTimeout' needs 'timeout': without a deadline the hold never times out", at: member.keyLocation)
            }
            if let outcome = onTimeout(member.value) { hold.onTimeout = outcome }
        }
        return hold
    }

    private func onTimeout(_ node: ConfigNode) -> HoldSpec.TimeoutOutcome? {
        let wording = "\"release\", \"reset\" or an object such as { status: 504 }"
        switch node.kind {
        case .string:
            return diagnostics.attempt {
                try node.choice("'onTimeout'", of: ["release", "reset"]) == "release" ? .release : .reset
            }
        case .object:
            guard
                let reader = diagnostics.object(node, name: "'onTimeout'", context: "'onTimeout'", allowed: ["status"])
            else { return nil }
            return diagnostics.attempt {
                .respond(status: try reader.requiredInt("status", in: Self.syntheticStatuses))
            }
        default:
            diagnostics.report(ConfigError.mismatch("'onTimeout'", expected: wording, found: node))
            return nil
        }
    }

    private func setCookie(_ node: ConfigNode) throws(ConfigError) -> SetCookieSpec {
        let wording = "a Set-Cookie value such as \"sid=abc; Path=/\" or an object such as { replay: \"sid\" }"
        switch node.kind {
        case .string(let value):
            let name = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard name.count == 2, WireSyntax.isToken(String(name[0])), WireSyntax.isFieldValue(value) else {
                throw ConfigError.mismatch("'setCookie'", expected: wording, found: node)
            }
            return .literal(value)
        case .object:
            let reader = try ConfigObjectReader(node, name: "'setCookie'", context: "'setCookie'")
            try reader.finish(allowedKeys: ["replay"])
            let cookieNode = try reader.requiredNode("replay")
            let cookie = try cookieNode.string("'replay'")
            guard WireSyntax.isToken(cookie) else {
                throw ConfigError.mismatch("'replay'", expected: "a cookie name", found: cookieNode)
            }
            return .replay(cookieName: cookie)
        default:
            throw ConfigError.mismatch("'setCookie'", expected: wording, found: node)
        }
    }

    private func stripCookie(_ node: ConfigNode) throws(ConfigError) -> String {
        let name = try node.string("'stripCookie'")
        guard name == "*" || WireSyntax.isToken(name) else {
            throw ConfigError.mismatch("'stripCookie'", expected: "a cookie name or \"*\" for all cookies", found: node)
        }
        return name
    }

    private func duplicate(_ node: ConfigNode) -> DuplicateSpec? {
        let keys = ["count", "spacing", "timing"]
        guard let reader = diagnostics.object(node, name: "'duplicate'", context: "'duplicate'", allowed: keys) else {
            return nil
        }
        var spec = DuplicateSpec()
        if let count = diagnostics.optional({ try reader.int("count", in: 1...Int.max) }) { spec.count = count }
        if let spacing = reader.node("spacing"), let value = diagnostics.attempt({ try spacing.seconds("'spacing'") }) {
            spec.spacing = value
        }
        if let timing = reader.node("timing"),
            let value = diagnostics.attempt({
                try timing.choice("'timing'", of: ["before-response", "after-response"])
            })
        {
            spec.timing = DuplicateSpec.Timing(rawValue: value) ?? .afterResponse
        }
        return spec
    }

    /// `fault: "kind"` or `{ kind, bytes?, seconds?, code?, lastStream? }`. `close-mid-body` sends
    /// `bytes` of the body (default 0: right after the head); `truncate` needs `bytes` (the model
    /// has no "half the body" value); `stall` lasts `seconds` (default 30). `code` is the HTTP/2
    /// error code of the break (a name from RFC 9113 §7 or a number); `lastStream` ("previous" or
    /// "this") says which stream a `goaway` names as the last one processed.
    private func fault(_ node: ConfigNode) -> (fault: TransportFault, code: HTTP2ErrorCode?)? {
        var kindNode = node
        var reader: ConfigObjectReader?
        if case .object = node.kind {
            guard
                let object = diagnostics.object(
                    node, name: "'fault'", context: "'fault'",
                    allowed: ["kind", "bytes", "seconds", "code", "lastStream"]),
                let kind = diagnostics.attempt({ try object.requiredNode("kind") })
            else { return nil }
            reader = object
            kindNode = kind
        }
        guard
            let kind = diagnostics.attempt({
                try kindNode.choice(reader == nil ? "'fault'" : "'kind'", of: Self.faultKinds)
            })
        else {
            return nil
        }
        var bytes: Int?
        var seconds: Duration?
        var code: HTTP2ErrorCode?
        var thisStreamProcessed = false
        if let reader {
            if let member = reader.member("bytes") {
                if kind == "close-mid-body" || kind == "truncate" {
                    bytes = diagnostics.attempt { try member.value.int("'bytes'", in: 0...Int.max) }
                } else {
                    diagnostics.report(
                        "'bytes' applies only to the 'close-mid-body' and 'truncate' faults", at: member.keyLocation)
                }
            }
            if let member = reader.member("seconds") {
                if kind == "stall" {
                    seconds = diagnostics.attempt { try member.value.seconds("'seconds'") }
                } else {
                    diagnostics.report("'seconds' applies only to the 'stall' fault", at: member.keyLocation)
                }
            }
            if let member = reader.member("code") { code = errorCode(member.value) }
            if let member = reader.member("lastStream") {
                if kind == "goaway" {
                    thisStreamProcessed =
                        diagnostics.attempt({ try member.value.choice("'lastStream'", of: Self.goAwayLastStreams) })
                        == "this"
                } else {
                    diagnostics.report("'lastStream' applies only to the 'goaway' fault", at: member.keyLocation)
                }
            }
        }
        let fault: TransportFault
        switch kind {
        case "reset": fault = .reset
        case "close-before-response": fault = .closeBeforeResponse
        case "close-mid-body": fault = .closeMidBody(afterBytes: bytes ?? 0)
        case "truncate":
            guard let bytes else {
                if reader?.member("bytes") == nil {
                    diagnostics.report(
                        "the 'truncate' fault needs 'bytes', how many body bytes to send before closing: { kind: \"truncate\", bytes: 100 }",
                        at: node.location)
                }
                return nil
            }
            fault = .truncate(bytes: bytes)
        case "stall": fault = .stall(seconds ?? Self.defaultStall)
        case "malformed-chunk": fault = .malformedChunk
        case "goaway": fault = .goAway(thisStreamProcessed: thisStreamProcessed)
        default: preconditionFailure("unlisted fault kind '\(kind)'")
        }
        return (fault, code)
    }

    /// An HTTP/2 error code: its RFC 9113 §7 name ("REFUSED_STREAM") or a number (any 32-bit
    /// value: a peer must treat unknown codes as INTERNAL_ERROR, which is worth testing).
    private func errorCode(_ node: ConfigNode) -> HTTP2ErrorCode? {
        let names = HTTP2ErrorCode.named.map(\.description)
        if case .number = node.kind {
            return diagnostics.attempt { try node.int("'code'", in: 0...Int(UInt32.max)) }.map {
                HTTP2ErrorCode(rawValue: UInt32($0))
            }
        }
        return diagnostics.attempt({ try node.choice("'code'", of: names) }).flatMap(HTTP2ErrorCode.init(name:))
    }
}
