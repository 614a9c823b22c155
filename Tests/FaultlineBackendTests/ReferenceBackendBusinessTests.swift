import FaultlineBackend
import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1
import Testing

/// Business endpoints, notes with idempotency keys, the job pipeline and the stats, over loopback.
@Suite struct ReferenceBackendBusinessTests {
    @Test func businessEndpointsNameTheAccount() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            let bob = try login(client, "bob")
            let messages = try client.call("/v1/messages", bearer: bob.access)
            #expect(messages.status == 200 && messages.string("/messages/0/text") == "message 1 for bob")
            let avatar = try client.call("/v1/avatar", bearer: bob.access)
            #expect(avatar.status == 200 && avatar.string("/account") == "bob" && avatar.body.count > 16 * 1024)
            #expect(try client.call("/v1/count", bearer: bob.access).int("/count") == 1)
            #expect(try client.call("/v1/count", session: bob.session).int("/count") == 2)
            let me = try client.call("/v1/me", bearer: bob.access)
            #expect(me.string("/account") == "bob" && me.int("/family") == 1)
        }
    }

    @Test func notesHonourIdempotencyKeys() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            func post(_ body: String, key: String?) throws -> BackendClient.Response {
                var headers = [("Authorization", "Bearer \(alice.access)"), ("Content-Type", "application/json")]
                if let key { headers.append(("Idempotency-Key", key)) }
                return try client.request("POST", "/v1/notes", headers: headers, body: body)
            }
            let body = #"{"text":"hello"}"#
            let first = try post(body, key: "k-1")
            #expect(first.status == 201)
            #expect(first.int("/length") == body.utf8.count && first.string("/checksum")?.hasPrefix("fnv1a64:") == true)
            let retry = try post(body, key: "k-1")
            #expect(retry.status == 201 && retry.body == first.body)
            #expect(try post(#"{"text":"other"}"#, key: "k-1").status == 422)
            let unkeyed = try post(body, key: nil)
            #expect(unkeyed.int("/id") == 2)
            let stats = backend.stats()
            #expect(stats.notesCreated == 2 && stats.idempotentReplays == 1)
            #expect(stats.requestCount("POST /v1/notes") == 4)
            // Notes need credentials like every business endpoint.
            #expect(try client.request("POST", "/v1/notes", body: body).status == 401)
        }
    }

    @Test func convertAfterAFailedDownloadIsAConflict() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            let created = try client.request("POST", "/jobs", body: "")
            #expect(created.status == 201 && created.int("/job") == 1)
            #expect(try client.request("POST", "/jobs/1/convert", body: "").status == 409)
            let failed = try client.request("POST", "/jobs/1/download?fail=1", body: "")
            #expect(failed.status == 500 && failed.string("/error") == "download_failed")
            let refused = try client.request("POST", "/jobs/1/convert", body: "")
            #expect(refused.status == 409 && refused.string("/error") == "dependency_failed")
            #expect(try client.request("POST", "/jobs/1/download", body: "").status == 200)
            #expect(try client.request("POST", "/jobs/1/convert", body: "").status == 200)
            let written = try client.request("POST", "/jobs/1/write", body: "")
            #expect(written.status == 200 && written.string("/steps/write/state") == "succeeded")
            let status = try client.request("GET", "/jobs/1")
            #expect(status.int("/steps/download/attempts") == 2 && status.int("/steps/convert/attempts") == 1)
            #expect(try client.request("POST", "/jobs/9/download", body: "").status == 404)
        }
    }

    @Test func jobsCanBeCreatedToFailAStepAndCancelled() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            #expect(try client.request("POST", "/jobs?fail=download", body: "").int("/job") == 1)
            #expect(try client.request("POST", "/jobs/1/download", body: "").status == 500)
            #expect(try client.request("POST", "/jobs", body: #"{"fail": ["write"]}"#).int("/job") == 2)
            #expect(try client.request("POST", "/jobs/2/download", body: "").status == 200)
            #expect(try client.request("POST", "/jobs/2/convert", body: "").status == 200)
            #expect(try client.request("POST", "/jobs/2/write", body: "").status == 500)
            #expect(try client.request("POST", "/jobs", body: "").int("/job") == 3)
            for step in ["download", "convert"] {
                #expect(try client.request("POST", "/jobs/3/\(step)", body: "").status == 200)
            }
            #expect(try client.request("POST", "/jobs/3/cancel", body: "").status == 200)
            let write = try client.request("POST", "/jobs/3/write", body: "")
            #expect(write.status == 409 && write.string("/error") == "job_cancelled")
            #expect(try client.request("POST", "/jobs?fail=explode", body: "").status == 400)
        }
    }

    @Test func completionCallsAreCountedPerJob() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            _ = try client.request("POST", "/jobs", body: "")
            #expect(try client.request("POST", "/jobs/1/complete", body: "").int("/calls") == 1)
            let second = try client.request("POST", "/jobs/1/complete", body: "")
            #expect(second.status == 200 && second.int("/calls") == 2 && second.string("/job") == "1")
            #expect(try client.request("POST", "/jobs/42/complete", body: "").int("/calls") == 1)
            let stats = backend.stats()
            #expect(stats.completions(job: "1") == 2 && stats.completions(job: "42") == 1)
            #expect(stats.requestCount("POST /jobs/{id}/complete") == 3)
            #expect(try client.request("GET", "/jobs/1").int("/completionCalls") == 2)
        }
    }

    @Test func statsEndpointReportsTheCounters() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            _ = try client.token("grant_type=refresh_token&refresh_token=\(alice.refresh)")
            _ = try client.token("grant_type=refresh_token&refresh_token=\(alice.refresh)")
            _ = try client.call("/v1/messages", bearer: alice.access)
            _ = try client.request("POST", "/jobs/5/complete", body: "")
            let stats = try client.request("GET", "/_backend/stats")
            #expect(stats.status == 200)
            #expect(stats.int("/logins") == 1 && stats.int("/refreshes") == 1)
            #expect(stats.int("/reuseDetections") == 1 && stats.int("/revokedFamilies") == 1)
            #expect(stats.int("/completionCalls/5") == 1)
            #expect(stats.int("/requests/POST ~1oauth~1token") == 3)
            #expect(stats.int("/requests/GET ~1v1~1messages") == 1)
            #expect(stats.int("/unauthorized") == 1)
            // Introspection is not counted.
            #expect(stats.json?.value(at: "/requests/GET ~1_backend~1stats") == nil)
            #expect(backend.stats().requests.count == 3)
        }
    }

    @Test func malformedInputIsA400ThatKeepsTheConnection() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            let cases: [(String, String, [(String, String)], String, String)] = [
                ("POST", "/oauth/token", [], "grant_type=password&username=%zz&password=x", "invalid_request"),
                ("POST", "/oauth/token", [], "grant_type=password&username=a&username=b&password=x", "invalid_request"),
                ("POST", "/oauth/token", [], "username=a&password=x", "invalid_request"),
                ("POST", "/oauth/token", [], "grant_type=password&password=x", "invalid_request"),
                ("POST", "/oauth/token", [], "grant_type=refresh_token", "invalid_request"),
                ("POST", "/oauth/token", [], "grant_type=client_credentials", "unsupported_grant_type"),
                (
                    "POST", "/oauth/token", [("Content-Type", "application/json")], #"{"grant_type":"password"}"#,
                    "invalid_request"
                ),
                ("POST", "/jobs", [], "{not json", "invalid_request"),
                ("POST", "/jobs", [], #"{"fail": 3}"#, "invalid_request"),
                ("POST", "/jobs/1/download?fail=maybe", [], "", "invalid_request"),
                ("GET", "/v1/me?x=%", [], "", "invalid_request"),
                ("GET", "/v1/me", [("Authorization", "Bearer a b")], "", "invalid_request"),
                (
                    "GET", "/v1/me", [("Authorization", "Bearer a"), ("Authorization", "Bearer b")], "",
                    "invalid_request"
                ),
            ]
            _ = try client.request("POST", "/jobs", body: "")
            for (method, path, headers, body, error) in cases {
                let response = try client.request(method, path, headers: headers, body: body)
                #expect(response.status == 400, "\(method) \(path) \(body)")
                #expect(response.string("/error") == error, "\(method) \(path) \(body): \(response.text)")
            }
            let alice = try login(client)
            let notJSON = try client.request(
                "POST", "/v1/notes", headers: [("Authorization", "Bearer \(alice.access)")], body: "text=hi")
            #expect(notJSON.status == 400 && notJSON.string("/error") == "invalid_request")
            let missing = try client.request("GET", "/nowhere")
            #expect(missing.status == 404 && missing.string("/error") == "not_found")
            let wrongMethod = try client.request("DELETE", "/oauth/token")
            #expect(wrongMethod.status == 405 && wrongMethod.headers.first(name: "Allow") == "POST")
            // Still the same connection, still serving.
            #expect(try client.call("/v1/me", bearer: alice.access).status == 200)
        }
    }
}
