import FaultlineConfig
import FaultlineCore
import Testing

@testable import FaultlineRules

@Suite struct LoaderActionValidationTests {
    static let actionShapes: [ValidationCase] = [
        ValidationCase.rule(
            "actions: [⟨'delay']", #"each action must be an object with one key, such as { delay: 1 }, found "delay""#),
        ValidationCase.rule(
            "actions: [⟨{}]",
            "an action object needs one key: respond, rateLimit, rewrite, route, hold, setCookie, stripCookie, duplicate, delay, throttle, fault"
        ),
        ValidationCase.rule(
            "actions: [{ delay: 1, ⟨throttle: 5 }]",
            "an action object holds exactly one action; put 'throttle' in an object of its own"),
        ValidationCase.rule("actions: [{ ⟨respnd: {} }]", "unknown action 'respnd' (did you mean 'respond'?)"),
        ValidationCase.rule(
            "actions: [{ ⟨SetCookie: 'a=b' }]", "unknown action 'SetCookie' (did you mean 'setCookie'?)"),
        ValidationCase.rule(
            "actions: [{ ⟨explode: 1 }]",
            "unknown action 'explode'; actions are respond, rateLimit, rewrite, route, hold, setCookie, stripCookie, duplicate, delay, throttle, fault"
        ),
    ]

    static let responses: [ValidationCase] = [
        ValidationCase.rule(
            "actions: [{ rateLimit: ⟨-1 }]", "'rateLimit' must be whole seconds to wait, 0 to 86400, found -1"),
        ValidationCase.rule(
            "actions: [{ rateLimit: ⟨'soon' }]",
            #"'rateLimit' must be seconds to wait, or an object such as { retryAfter: 2, status: 503 }, found "soon""#),
        ValidationCase.rule(
            "actions: [{ rateLimit: ⟨{ status: 503 } }]",
            "missing required key 'retryAfter' in 'rateLimit'"),
        ValidationCase.rule(
            "actions: [{ rateLimit: { retryAfter: 1, status: ⟨500 } }]", "'status' must be 429 or 503, found 500"),
        ValidationCase.rule(
            "actions: [{ rateLimit: { retryAfter: ⟨90000 } }]",
            "'retryAfter' must be whole seconds to wait, 0 to 86400, found 90000"),
        ValidationCase.rule(
            "actions: [{ rateLimit: 1 }, { ⟨respond: { status: 200 } }]",
            "'respond' cannot be combined with 'rateLimit': a rule answers once: give the 429 or 503 by one of them"),
        ValidationCase.rule("actions: [{ respond: ⟨{} }]", "missing required key 'status' in 'respond'"),
        ValidationCase.rule("actions: [{ respond: ⟨401 }]", "'respond' must be an object, found 401"),
        ValidationCase.rule(
            "actions: [{ respond: { status: ⟨100 } }]", "'status' must be an integer from 200 to 599, found 100"),
        ValidationCase.rule(
            "actions: [{ respond: { status: ⟨600 } }]", "'status' must be an integer from 200 to 599, found 600"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, ⟨stauts: 1 } }]",
            "unknown key 'stauts' in 'respond' (did you mean 'status'?)"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, body: 'x', ⟨json: {}, ⟨bodyFile: 'f' } }]",
            "'json' cannot be combined with 'body': give one of 'body', 'json' or 'bodyFile'",
            "'bodyFile' cannot be combined with 'body': give one of 'body', 'json' or 'bodyFile'"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, reason: ⟨'a\\nb' } }]",
            #"'reason' must be a reason phrase on one line, found "a\nb""#),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, headers: { A: ⟨'x\\ny' } } }]",
            "header 'A' must not contain CR, LF or NUL (RFC 9110 §5.5)"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, headers: { ⟨'A:': 'x' } } }]",
            "'A:' is not a valid header name (RFC 9110 §5.1: a token)"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, headers: { A: [⟨1] } } }]",
            "header 'A' must be a string or a list of strings, found 1"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, bodyFile: ⟨'missing.txt' } }]",
            "cannot read bodyFile 'missing.txt' (./missing.txt): No such file or directory"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200, json: { a: ⟨Infinity } } }]", "JSON cannot hold Infinity or NaN"),
        ValidationCase.rule(
            "actions: [{ rewrite: ⟨{} }]",
            "'rewrite' changes nothing: give 'status', 'method', 'path', 'query', 'headers', 'body', 'json', 'bodyFile' or 'jsonSet'"
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { body: 'x', ⟨jsonSet: { '/a': 1 } } }]",
            "'jsonSet' cannot be combined with 'body', which replaces the whole body"),
        ValidationCase.rule(
            "actions: [{ rewrite: { jsonSet: { ⟨'a': 1 } } }]",
            "'a' is not a valid JSON pointer: a JSON pointer must be empty or start with '/'"),
        ValidationCase.rule(
            "actions: [{ rewrite: { headers: { ⟨sett: {} } } }]",
            "unknown key 'sett' in 'headers' of 'rewrite' (did you mean 'set'?)"),
        ValidationCase.rule(
            "actions: [{ rewrite: { headers: { set: { A: ⟨['1'] } } } }]", "header 'A' must be a string, found an array"
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { headers: { remove: ['Server', ⟨'a b'] } } }]",
            #"'remove' must be header names (RFC 9110 §5.1: tokens), found "a b""#),
        ValidationCase.rule(
            "actions: [{ rewrite: { status: ⟨'200' } }]", #"'status' must be an integer from 200 to 599, found "200""#),
    ]

    static let otherActions: [ValidationCase] = [
        ValidationCase.rule("actions: [{ hold: ⟨{} }]", "missing required key 'name' in 'hold'"),
        ValidationCase.rule("actions: [{ hold: { name: ⟨'' } }]", #"'name' must be a non-empty string, found """#),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', ⟨onTimeout: 'reset' } }]",
            "'onTimeout' needs 'timeout': without a deadline the hold never times out"),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', timeout: 1, onTimeout: ⟨'relase' } }]",
            #"'onTimeout' must be "release" or "reset", found "relase" (did you mean 'release'?)"#),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', timeout: 1, onTimeout: { status: ⟨100 } } }]",
            "'status' must be an integer from 200 to 599, found 100"),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', timeout: 1, onTimeout: ⟨5 } }]",
            #"'onTimeout' must be "release", "reset" or an object such as { status: 504 }, found 5"#),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', release: { on: ⟨'rule:zzz' } } }]", "unknown rule 'zzz' in this scenario"),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', release: ⟨{} } }]", "missing required key 'on' in 'release' of 'hold'"),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', release: ⟨{ ⟨onn: 'mark:a' } } }]",
            "missing required key 'on' in 'release' of 'hold'",
            "unknown key 'onn' in 'release' of 'hold' (did you mean 'on'?)"),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', timeout: ⟨-1 } }]",
            "'timeout' must be a number of seconds from 0 to 1000000, found -1"),
        ValidationCase.rule(
            "actions: [{ hold: { name: 'h', timeout: ⟨1e7 } }]",
            "'timeout' must be a number of seconds from 0 to 1000000, found 10000000"),
        ValidationCase.rule(
            "actions: [{ setCookie: ⟨'novalue' }]",
            #"'setCookie' must be a Set-Cookie value such as "sid=abc; Path=/" or an object such as { replay: "sid" }, found "novalue""#
        ),
        ValidationCase.rule(
            "actions: [{ setCookie: { ⟨replai: 'x' } }]", "unknown key 'replai' in 'setCookie' (did you mean 'replay'?)"
        ),
        ValidationCase.rule(
            "actions: [{ setCookie: { replay: ⟨'a b' } }]", #"'replay' must be a cookie name, found "a b""#),
        ValidationCase.rule(
            "actions: [{ stripCookie: ⟨'a b' }]",
            #"'stripCookie' must be a cookie name or "*" for all cookies, found "a b""#),
        ValidationCase.rule("actions: [{ duplicate: { count: ⟨0 } }]", "'count' must be a positive integer, found 0"),
        ValidationCase.rule(
            "actions: [{ duplicate: { timing: ⟨'after' } }]",
            #"'timing' must be "before-response" or "after-response", found "after""#),
        ValidationCase.rule(
            "actions: [{ duplicate: { spacing: ⟨'1s' } }]",
            #"'spacing' must be a number of seconds from 0 to 1000000, found "1s""#),
        ValidationCase.rule(
            "actions: [{ duplicate: { ⟨cout: 2 } }]", "unknown key 'cout' in 'duplicate' (did you mean 'count'?)"),
        ValidationCase.rule(
            "actions: [{ delay: ⟨-0.5 }]", "'delay' must be a number of seconds from 0 to 1000000, found -0.5"),
        ValidationCase.rule(
            "actions: [{ delay: ⟨'1' }]", #"'delay' must be a number of seconds from 0 to 1000000, found "1""#),
        ValidationCase.rule(
            "actions: [{ throttle: ⟨0 }]", "'throttle' must be a positive integer (bytes per second), found 0"),
        ValidationCase.rule(
            "actions: [{ throttle: ⟨1.5 }]", "'throttle' must be a positive integer (bytes per second), found 1.5"),
    ]

    static let faults: [ValidationCase] = [
        ValidationCase.rule(
            "actions: [{ fault: ⟨'resett' }]",
            #"'fault' must be "reset", "close-before-response", "close-mid-body", "truncate", "stall", "malformed-chunk" or "goaway", found "resett" (did you mean 'reset'?)"#
        ),
        ValidationCase.rule(
            "actions: [{ fault: { kind: ⟨'stal' } }]",
            #"'kind' must be "reset", "close-before-response", "close-mid-body", "truncate", "stall", "malformed-chunk" or "goaway", found "stal" (did you mean 'stall'?)"#
        ),
        ValidationCase.rule(
            "phase: 'response', actions: [{ fault: ⟨'truncate' }]",
            #"the 'truncate' fault needs 'bytes', how many body bytes to send before closing: { kind: "truncate", bytes: 100 }"#
        ),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'reset', ⟨bytes: 3 } }]",
            "'bytes' applies only to the 'close-mid-body' and 'truncate' faults"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'close-mid-body', ⟨seconds: 3 } }]",
            "'seconds' applies only to the 'stall' fault"),
        ValidationCase.rule("actions: [{ fault: ⟨{ bytes: 1 } }]", "missing required key 'kind' in 'fault'"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'truncate', bytes: ⟨-1 } }]", "'bytes' must be an integer ≥ 0, found -1"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'stall', seconds: ⟨-1 } }]",
            "'seconds' must be a number of seconds from 0 to 1000000, found -1"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'stall', ⟨second: 1 } }]",
            "unknown key 'second' in 'fault' (did you mean 'seconds'?)"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'reset', code: ⟨'REFUSED_STREM' } }]",
            #"'code' must be "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY" or "HTTP_1_1_REQUIRED", found "REFUSED_STREM" (did you mean 'REFUSED_STREAM'?)"#
        ),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'reset', code: ⟨-1 } }]",
            "'code' must be an integer from 0 to 4294967295, found -1"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'reset', ⟨lastStream: 'this' } }]",
            "'lastStream' applies only to the 'goaway' fault"),
        ValidationCase.rule(
            "actions: [{ fault: { kind: 'goaway', lastStream: ⟨'next' } }]",
            #"'lastStream' must be "previous" or "this", found "next""#),
    ]

    /// `code` by name or number, and `goaway` in either phase with either last stream.
    @Test func http2FaultOptionsDecode() throws {
        let text = """
            { rules: [
              { name: 'refuse', actions: [{ fault: { kind: 'reset', code: 'REFUSED_STREAM' } }] },
              { name: 'odd', phase: 'response', actions: [{ fault: { kind: 'close-mid-body', bytes: 9, code: 255 } }] },
              { name: 'away', actions: [{ fault: 'goaway' }] },
              { name: 'after', phase: 'response', actions: [{ fault: { kind: 'goaway', lastStream: 'this', code: 'ENHANCE_YOUR_CALM' } }] },
            ] }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "h2.json5")
        #expect(errors == [])
        #expect(
            scenario?.rules.map(\.actions) == [
                [.fault(.reset, code: .refusedStream)],
                [.fault(.closeMidBody(afterBytes: 9), code: HTTP2ErrorCode(rawValue: 255))],
                [.fault(.goAway(thisStreamProcessed: false))],
                [.fault(.goAway(thisStreamProcessed: true), code: .enhanceYourCalm)],
            ])
        #expect(scenario?.rules.map(\.phase) == [.request, .response, .request, .response])
    }

    static let phases: [ValidationCase] = [
        ValidationCase.rule(
            "phase: 'request', actions: [{ rewrite: { ⟨status: 200 } }]",
            #"'status' in 'rewrite' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'request', actions: [{ ⟨setCookie: 'a=b' }, { ⟨stripCookie: 'c' }]",
            #"'setCookie' needs the response phase, but the rule says phase: "request""#,
            #"'stripCookie' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'request', actions: [{ ⟨fault: 'malformed-chunk' }]",
            #"fault 'malformed-chunk' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'request', actions: [{ ⟨fault: { kind: 'close-mid-body' } }]",
            #"fault 'close-mid-body' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'request', actions: [{ ⟨fault: { kind: 'truncate', bytes: 1 } }]",
            #"fault 'truncate' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'request', match: { ⟨status: 401, ⟨responseHeaders: {} }",
            #"'status' in 'match' needs the response phase, but the rule says phase: "request""#,
            #"'responseHeaders' in 'match' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'response', actions: [{ ⟨duplicate: {} }]",
            #"'duplicate' needs the request phase, but the rule says phase: "response""#),
        ValidationCase.rule(
            "actions: [{ rewrite: { ⟪status: 200 } }, { ⟨duplicate: {} }]",
            "'duplicate' needs the request phase, but 'status' in 'rewrite' at @0 puts the rule in the response phase"),
        ValidationCase.rule(
            "match: { ⟪status: '5xx' }, actions: [{ ⟨duplicate: { count: 1 } }]",
            "'duplicate' needs the request phase, but 'status' in 'match' at @0 puts the rule in the response phase"),
    ]

    static let combinations: [ValidationCase] = [
        ValidationCase.rule(
            "actions: [{ ⟪respond: { status: 401 } }, { ⟨respond: { status: 403 } }]",
            "a rule can have only one 'respond' action (the first is at @0)"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 401 } }, { ⟨duplicate: {} }]",
            "'duplicate' cannot be combined with 'respond': a synthetic response never reaches upstream, so there is nothing to duplicate"
        ),
        ValidationCase.rule(
            "actions: [{ duplicate: {} }, { ⟨respond: { status: 401 } }]",
            "'respond' cannot be combined with 'duplicate': a synthetic response never reaches upstream, so there is nothing to duplicate"
        ),
        ValidationCase.rule(
            "actions: [{ respond: { status: 401 } }, { ⟨rewrite: { status: 200 } }]",
            "'rewrite' cannot be combined with 'respond': put the changes in the synthetic response"),
        ValidationCase.rule(
            "actions: [{ ⟪fault: 'reset' }, { ⟨fault: 'stall' }]",
            "a rule can have only one 'fault' action (the first is at @0)"),
        ValidationCase.rule(
            "actions: [{ ⟪delay: 1 }, { ⟨delay: 2 }]", "a rule can have only one 'delay' action (the first is at @0)"),
        ValidationCase.rule(
            "actions: [{ ⟪hold: { name: 'a' } }, { ⟨hold: { name: 'b' } }]",
            "a rule can have only one 'hold' action (the first is at @0)"),
    ]

    @Test(arguments: actionShapes) func actionObjects(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: responses) func respondAndRewrite(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: otherActions) func holdCookiesDuplicateDelayThrottle(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: faults) func transportFaults(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: phases) func phaseConflicts(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: combinations) func actionCombinations(_ testCase: ValidationCase) { testCase.run() }

    @Test func actionsThatCombineAreAccepted() throws {
        let text = """
            { rules: [
              { name: 'a', actions: [{ hold: { name: 'h' } }, { rewrite: { status: 502 } }, { delay: 1 }, { setCookie: 'a=1' }, { setCookie: 'b=2' }] },
              { name: 'b', actions: [{ respond: { status: 200, body: 'big' } }, { fault: { kind: 'truncate', bytes: 1 } }] },
              { name: 'c', actions: [{ duplicate: { count: 3 } }, { delay: 0 }, { throttle: 10 }, { hold: { name: 'h' } }] },
              { name: 'd', phase: 'response', actions: [{ respond: { status: 500 } }, { stripCookie: 'a' }, { stripCookie: 'b' }] },
            ] }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "v.json5")
        #expect(errors == [])
        #expect(scenario?.rules.map(\.phase) == [.response, .response, .request, .response])
    }
}
