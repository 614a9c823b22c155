import Testing

@testable import FaultlineHTTP2

/// The events of a server must not depend on how the bytes were cut between `receive` calls.
@Suite struct SplitPointTests {
    /// The client's whole first flight, as our client connection writes it: preface (magic +
    /// SETTINGS), WINDOW_UPDATE (the connection window), HEADERS, DATA with END_STREAM.
    static func firstFlight() throws -> [UInt8] {
        let client = try HTTP2Connection(role: .client)
        let id = try client.startRequest(
            headers: request(
                "POST", "/split", [("content-type", "text/plain"), ("x-long", String(repeating: "v", count: 40))]),
            endStream: false)
        client.sendData(stream: id, bytes("hello, split world")[...], endStream: true)
        return client.takeOutput()
    }

    /// A fresh server's events for `pieces` fed one `receive` each.
    static func events(_ pieces: [ArraySlice<UInt8>]) throws -> [HTTP2Event] {
        let server = try HTTP2Connection(role: .server)
        var events: [HTTP2Event] = []
        for piece in pieces { events += server.receive(Array(piece)) }
        return events
    }

    @Test func wholeFlight() throws {
        let flight = try Self.firstFlight()
        #expect(Frame.parse(flight).map(\.type) == [Frame.settings, Frame.windowUpdate, Frame.headers, Frame.data])
        let events = try Self.events([flight[...]])
        #expect(events.count == 3)
        guard events.count == 3 else { return }
        #expect(
            events[1]
                == .headers(
                    stream: 1,
                    headers: request(
                        "POST", "/split",
                        [("content-type", "text/plain"), ("x-long", String(repeating: "v", count: 40))]),
                    endStream: false))
        #expect(events[2] == .data(stream: 1, bytes: bytes("hello, split world"), endStream: true))
    }

    @Test func oneByteAtATime() throws {
        let flight = try Self.firstFlight()
        let whole = try Self.events([flight[...]])
        let pieces = flight.indices.map { flight[$0..<($0 + 1)] }
        #expect(try Self.events(pieces) == whole)
    }

    @Test func everySplitIntoTwo() throws {
        let flight = try Self.firstFlight()
        let whole = try Self.events([flight[...]])
        var differing: [Int] = []
        for split in 1..<flight.count where try Self.events([flight[..<split], flight[split...]]) != whole {
            differing.append(split)
        }
        #expect(differing == [], "split points with other events: \(differing)")
    }
}
