import FaultlineConfig
import FaultlineFlow
import FaultlinePosix
import FaultlineProxy
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

/// The control API's front door: the token, unknown paths and methods, bad bodies.
@Suite struct ControlAuthTests {
    @Test func callsWithoutTheTokenAre401WithAJSONError() throws {
        try withControl { harness in
            for token: String? in [nil, "wrong", ControlHarness.token + "x", String(ControlHarness.token.dropLast())] {
                let client = ControlClient(address: harness.controlAddress, token: token, timeout: .seconds(5))
                for (method, path) in [
                    ("GET", "/v1/health"), ("GET", "/v1/holds"), ("POST", "/v1/marks"), ("GET", "/nope"),
                ] {
                    let response = try client.call(method, path)
                    #expect(response.status == 401, "\(method) \(path) with token \(token ?? "none")")
                    #expect(response.json?.string("/error")?.contains("token") == true)
                    #expect(response.header("www-authenticate")?.hasPrefix("Bearer") == true)
                }
            }
            // Nothing a refused call asked for happened.
            #expect(try harness.events().allSatisfy { $0.kind != .mark })
        }
    }

    @Test func theRightTokenGetsHealth() throws {
        try withControl { harness in
            let response = try harness.call("GET", "/v1/health")
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            let json = try #require(response.json)
            #expect(json.string("/status") == "ok")
            #expect(json.string("/version")?.isEmpty == false)
            #expect(json.bool("/rules") == true)
            #expect(json.string("/listeners/0/address") == "127.0.0.1:\(harness.proxyPort)")
            #expect(json.string("/listeners/0/mode") == "forward")
        }
    }

    @Test func theSchemeIsCaseInsensitiveButTheTokenIsNot() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            let lower = try raw.exchange(
                "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: bearer \(ControlHarness.token)\r\n\r\n")
            #expect(lower.hasPrefix("HTTP/1.1 200 "))
            let upper = try raw.exchange(
                "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token.uppercased())\r\n\r\n"
            )
            #expect(upper.hasPrefix("HTTP/1.1 401 "))
            let basic = try raw.exchange(
                "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic Zm9vOmJhcg==\r\n\r\n")
            #expect(basic.hasPrefix("HTTP/1.1 401 "))
        }
    }

    @Test func tokenComparison() {
        #expect(ControlToken.matches("abc", "abc"))
        #expect(!ControlToken.matches("abd", "abc"))
        #expect(!ControlToken.matches("ab", "abc"))
        #expect(!ControlToken.matches("abcd", "abc"))
        #expect(!ControlToken.matches("", ""))
    }

    @Test func generatedTokensAre64HexDigitsAndDiffer() throws {
        let first = try ControlToken.generate()
        let second = try ControlToken.generate()
        #expect(first.count == 64)
        #expect(first.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first != second)
    }

    @Test func unknownPathIs404AndWrongMethodIs405WithAllow() throws {
        try withControl { harness in
            let missing = try harness.call("GET", "/v1/nothing")
            #expect(missing.status == 404)
            #expect(missing.json?.string("/error")?.contains("/v1/nothing") == true)

            let wrong = try harness.call("DELETE", "/v1/holds")
            #expect(wrong.status == 405)
            #expect(wrong.header("allow") == "GET")

            // /v1/state/reset is both the reset endpoint and a scenario named "reset".
            let both = try harness.call("GET", "/v1/state/reset")
            #expect(both.status == 405)
            #expect(both.header("allow") == "POST, PUT")
        }
    }

    @Test func badBodiesAre400SayingWhatWasExpected() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            let notJSON = try raw.post("/v1/marks", body: "{label: ")
            #expect(notJSON.hasPrefix("HTTP/1.1 400 "))
            #expect(notJSON.contains("'label'"))

            let wrongType = try harness.call("POST", "/v1/marks", json: #"{"label": 5}"#)
            #expect(wrongType.status == 400)
            #expect(wrongType.errorMessage.contains("'label' must be a string"))

            let misspelt = try harness.call("POST", "/v1/marks", json: #"{"lable": "x"}"#)
            #expect(misspelt.status == 400)
            #expect(misspelt.errorMessage.contains("did you mean 'label'"))

            let empty = try harness.call("POST", "/v1/marks")
            #expect(empty.status == 400)
            #expect(empty.errorMessage.contains("'label'"))

            let status = try harness.call("POST", "/v1/holds/gate/release", json: #"{"status": 42}"#)
            #expect(status.status == 400)
            #expect(status.errorMessage.contains("from 200 to 599"))
        }
    }

    @Test func bodiesOverTheLimitAre413() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            let big = "{\"label\": \"" + String(repeating: "x", count: 70 * 1024) + "\"}"
            let answer = try raw.post("/v1/marks", body: big)
            #expect(answer.hasPrefix("HTTP/1.1 413 "))
            #expect(try harness.events().allSatisfy { $0.kind != .mark })
        }
    }

    @Test func keepAliveServesSeveralCallsOnOneConnection() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            let connection = try raw.open()
            let request =
                "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token)\r\n\r\n"
            // Pipelined: both requests in one write, two answers in order.
            try raw.send(connection, request + request)
            let text = try raw.readUntil(connection) { $0.components(separatedBy: "HTTP/1.1 200 OK").count == 3 }
            #expect(text.components(separatedBy: "\"status\":\"ok\"").count == 3)
        }
    }

    @Test func http10AndHeadRequestsEndTheConnectionAfterTheAnswer() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            for request in [
                "GET /v1/health HTTP/1.0\r\nAuthorization: Bearer \(ControlHarness.token)\r\n\r\n",
                "HEAD /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token)\r\n\r\n",
            ] {
                let connection = try raw.open()
                try raw.send(connection, request)
                // readUntil stops at EOF: the whole text arrives and then the server closes.
                let text = try raw.readUntil(connection) { _ in false }
                #expect(text.contains("Connection: close"), "\(request)")
                #expect(text.contains("HTTP/1.1 200 OK") || text.contains("HTTP/1.1 405 "))
            }
        }
    }

    @Test func aControlPortInUseIsAClearStartError() throws {
        try withControl { harness in
            let taken = harness.controlAddress
            let second = ProxyServer(
                configuration: ServerConfiguration(
                    listeners: [
                        ListenerConfiguration(address: try SocketAddress(parsing: "127.0.0.1:0"), mode: .forward)
                    ],
                    loopCount: 1),
                trace: try TraceRecorder(output: .memory, flushInterval: .zero),
                control: ControlConfiguration(address: taken, token: "t"))
            #expect {
                try second.start()
            } throws: { error in
                "\(error)".contains("cannot listen for the control API on \(taken): address already in use")
            }
            #expect(second.boundAddresses.isEmpty, "nothing is left running")
        }
    }
}
