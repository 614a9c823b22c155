import FaultlineHTTP1
import FaultlinePosix
import Glibc
import Synchronization
import Testing

@testable import FaultlineBackend

/// HTTP/1.1 behaviour of the backend's connections: keep-alive, pipelining, framing, bad bytes.
@Suite struct BackendConnectionTests {
    @Test func oneConnectionServesManyRequests() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            for expected in 1...10 {
                let response = try client.call("/v1/count", bearer: alice.access)
                #expect(response.status == 200 && response.int("/count") == expected)
                #expect(response.headers.first(name: "Connection") == nil)
            }
            #expect(backend.stats().requestCount("GET /v1/count") == 10)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            let host = "Host: 127.0.0.1\r\n"
            client.send(
                "POST /jobs HTTP/1.1\r\n\(host)Content-Length: 0\r\n\r\n"
                    + "POST /jobs/1/complete HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
                    + "GET /nowhere HTTP/1.1\r\n\(host)\r\n")
            #expect(try client.readResponse(method: "POST").int("/job") == 1)
            #expect(try client.readResponse(method: "POST").int("/calls") == 1)
            #expect(try client.readResponse().status == 404)
        }
    }

    @Test func aClientThatReadsLateMakesTheBackendPauseAndStillGetsEveryResponse() throws {
        let backend = ReferenceBackend()
        let port = try backend.start().port
        defer { backend.stop() }
        let alice = try login(try BackendClient(port: port))
        let client = try BackendClient(port: port, receiveBuffer: 16 * 1024)
        let request = "GET /v1/avatar HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice.access)\r\n\r\n"
        // ~120 KB of requests asking for ~16 MB of answers, more than the kernel buffers hold:
        // the backend's output passes its high watermark and it stops reading until we drain it.
        let count = 1000
        client.send(String(repeating: request, count: count))
        let deadline = ContinuousClock.now + .seconds(5)
        while backend.service.backpressurePauses.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline {
            usleep(1000)
        }
        #expect(backend.service.backpressurePauses.load(ordering: .relaxed) > 0, "the backend never paused")
        for index in 0..<count {
            let response = try client.readResponse()
            #expect(response.status == 200 && response.body.count > 16 * 1024, "response \(index)")
        }
        #expect(try client.call("/v1/me", bearer: alice.access).status == 200)
    }

    @Test func connectionCloseAndHTTP10AreHonoured() throws {
        try withBackend { _, port in
            let closing = try BackendClient(port: port)
            let response = try closing.request("GET", "/_backend/stats", headers: [("Connection", "close")])
            #expect(response.status == 200 && response.headers.first(name: "Connection") == "close")
            #expect(closing.readsEOF())

            let old = try BackendClient(port: port)
            old.send("GET /_backend/stats HTTP/1.0\r\n\r\n")
            #expect(try old.readResponse().status == 200)
            #expect(old.readsEOF())

            let kept = try BackendClient(port: port)
            kept.send("GET /_backend/stats HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try kept.readResponse().headers.first(name: "Connection") == "keep-alive")
            kept.send("GET /_backend/stats HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try kept.readResponse().status == 200)
        }
    }

    @Test func headAnswersTheLengthWithoutTheBody() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            let get = try client.call("/v1/avatar", bearer: alice.access)
            client.send("HEAD /v1/avatar HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice.access)\r\n\r\n")
            let head = try client.readResponse(method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.headers.first(name: "Content-Length") == String(get.body.count))
            // The connection is still in step.
            #expect(try client.call("/v1/me", bearer: alice.access).status == 200)
        }
    }

    @Test func expectContinueGetsA100BeforeTheBody() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            let form = "grant_type=password&username=alice&password=x"
            client.send(
                "POST /oauth/token HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n")
            #expect(try client.readResponse(method: "POST", stopAtInterim: true).status == 100)
            client.send(form)
            #expect(try client.finishResponse().status == 200)
        }
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n", "GET /v1/me HTTP/1.1\r\n\r\n", "GET /v1/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "POST /jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "GET /v1/me HTTP/2.0\r\nHost: x\r\n\r\n",
        "\u{16}\u{03}\u{01}\u{00}\u{a5}\u{01}\u{00}\u{00}\u{a1}\u{03}\u{03}\r\n\r\n",
    ])
    func malformedHTTPGetsAJSONErrorAndTheConnectionCloses(_ bytes: String) throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            client.send(bytes)
            let response = try client.readResponse()
            #expect((400...505).contains(response.status))
            #expect(response.string("/error") == "malformed_request")
            #expect(response.headers.first(name: "Connection") == "close")
            #expect(client.readsEOF())
            // The backend itself is unharmed.
            #expect(try BackendClient(port: port).request("GET", "/_backend/stats").status == 200)
            #expect(backend.stats().requests.isEmpty)
        }
    }

    @Test func aBodyOverTheLimitIs413() throws {
        try withBackend(BackendConfiguration(maximumBodyBytes: 64)) { _, port in
            let announced = try BackendClient(port: port)
            announced.send("POST /v1/notes HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\n")
            let response = try announced.readResponse(method: "POST")
            #expect(response.status == 413 && response.string("/error") == "request_too_large")
            #expect(announced.readsEOF())

            let chunked = try BackendClient(port: port)
            chunked.send("POST /v1/notes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunked.send("40\r\n" + String(repeating: "a", count: 64) + "\r\n1\r\nb\r\n")
            #expect(try chunked.readResponse(method: "POST").status == 413)
            #expect(chunked.readsEOF())
        }
    }

    @Test func aRequestCutShortByTheClientIsRefused() throws {
        try withBackend { _, port in
            let client = try BackendClient(port: port)
            client.send("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
            client.shutdownWrite()
            #expect(try client.readResponse(method: "POST").status == 400)
            #expect(client.readsEOF())
        }
    }

    @Test func stopClosesConnectionsAndFreesThePort() throws {
        let backend = ReferenceBackend()
        let address = try backend.start()
        let client = try BackendClient(port: address.port)
        #expect(try client.request("GET", "/_backend/stats").status == 200)
        #expect(throws: BackendError.self) { try backend.start() }
        backend.stop()
        #expect(client.readsEOF())
        #expect(backend.address == nil)
        #expect(throws: (any Error).self) { try BackendClient(port: address.port) }
        // The state outlives a stop; the port can be taken again.
        let again = ReferenceBackend(configuration: BackendConfiguration(address: address))
        #expect(try again.start() == address)
        again.stop()
    }

    @Test func aPortInUseIsAReadableError() throws {
        try withBackend { _, port in
            let address = try SocketAddress(parsing: "127.0.0.1:\(port)")
            let second = ReferenceBackend(configuration: BackendConfiguration(address: address))
            let error = try #require(throws: BackendError.self) { try second.start() }
            #expect(error.description.contains("address already in use"))
        }
    }

    @Test func runsOnAGroupItIsGiven() throws {
        let group = try EventLoopGroup(loopCount: 2, namePrefix: "test-backend")
        defer { group.shutdown() }
        let backend = ReferenceBackend()
        let address = try backend.start(on: group)
        let client = try BackendClient(port: address.port)
        #expect(try client.request("GET", "/_backend/stats").status == 200)
        backend.stop()
        #expect(client.readsEOF())
        // The group keeps running for its owner.
        let again = try backend.start(on: group)
        #expect(try BackendClient(port: again.port).request("GET", "/_backend/stats").status == 200)
        backend.stop()
    }
}
