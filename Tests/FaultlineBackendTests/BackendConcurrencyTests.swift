import FaultlineBackend
import Testing

/// Many clients at once against a backend on two loops: the one lock keeps the store consistent.
@Suite struct BackendConcurrencyTests {
    static let configuration = BackendConfiguration(loopCount: 2)

    @Test func twentyClientsLoggingInAndRefreshingKeepTheStoreConsistent() throws {
        try withBackend(Self.configuration) { backend, port in
            let failures = Collected<String>()
            let families = Collected<Int>()
            let finished = runConcurrently(20) { index in
                do {
                    let client = try BackendClient(port: port)
                    // Half the threads share one account: each login must still be its own family.
                    let account = index.isMultiple(of: 2) ? "shared" : "user\(index)"
                    var credentials = try login(client, account)
                    for _ in 0..<10 {
                        let response = try client.token("grant_type=refresh_token&refresh_token=\(credentials.refresh)")
                        guard response.status == 200 else { return failures.append("refresh: \(response.text)") }
                        let next = try Credentials(response)
                        let me = try client.call("/v1/me", bearer: next.access)
                        guard me.status == 200, me.string("/account") == account else {
                            return failures.append("me: \(me.status) \(me.text)")
                        }
                        if try client.call("/v1/me", bearer: credentials.access).status != 401 {
                            failures.append("a rotated access token still worked")
                        }
                        credentials = next
                    }
                    if let family = try client.call("/v1/me", bearer: credentials.access).int("/family") {
                        families.append(family)
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(finished, "the clients did not finish within the deadline")
            #expect(failures.all == [])
            #expect(Set(families.all).count == 20)
            let stats = backend.stats()
            #expect(stats.logins == 20 && stats.refreshes == 200)
            #expect(stats.reuseDetections == 0 && stats.revokedFamilies == 0)
        }
    }

    @Test func racingTheSameRefreshTokenRotatesOnceAndRevokesTheFamily() throws {
        try withBackend(Self.configuration) { backend, port in
            let alice = try login(try BackendClient(port: port))
            let statuses = Collected<Int>()
            let winners = Collected<String>()
            let finished = runConcurrently(20) { _ in
                guard let client = try? BackendClient(port: port),
                    let response = try? client.token("grant_type=refresh_token&refresh_token=\(alice.refresh)")
                else { return statuses.append(-1) }
                statuses.append(response.status)
                if response.status == 200, let access = response.string("/access_token") { winners.append(access) }
            }
            #expect(finished, "the clients did not finish within the deadline")
            #expect(statuses.all.sorted() == [200] + Array(repeating: 400, count: 19))
            let stats = backend.stats()
            // The first replay after the winning rotation is the reuse; it revoked the family, so
            // the later ones are refused as revoked, and the winner's new token is dead too.
            #expect(stats.refreshes == 1 && stats.reuseDetections == 1 && stats.revokedFamilies == 1)
            #expect(stats.rejectedRefreshes == 18)
            let winner = try #require(winners.all.first)
            #expect(try BackendClient(port: port).call("/v1/me", bearer: winner).status == 401)
        }
    }

    @Test func pipelinedBurstsFromManyClientsLoseNoUpdate() throws {
        try withBackend(Self.configuration) { backend, port in
            let alice = try login(try BackendClient(port: port))
            let clients = 8
            let burst = 250
            let failures = Collected<String>()
            let finished = runConcurrently(clients) { _ in
                do {
                    let client = try BackendClient(port: port)
                    let request = "GET /v1/count HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice.access)\r\n\r\n"
                    client.send(String(repeating: request, count: burst))
                    for _ in 0..<burst {
                        let response = try client.readResponse()
                        if response.status != 200 { failures.append("status \(response.status)") }
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(finished, "the clients did not finish within the deadline")
            #expect(failures.all == [])
            // Every read-modify-write of the shared counter happened under the lock.
            let final = try BackendClient(port: port).call("/v1/count", bearer: alice.access)
            #expect(final.int("/count") == clients * burst + 1)
            #expect(backend.stats().requestCount("GET /v1/count") == clients * burst + 1)
        }
    }
}
