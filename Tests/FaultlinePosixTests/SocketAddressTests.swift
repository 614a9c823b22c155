import Testing

@testable import FaultlinePosix

@Suite struct SocketAddressTests {
    @Test func parsesAndPrintsIPv4() throws {
        let address = try SocketAddress(parsing: "127.0.0.1:8080")
        #expect(address == .v4(.init(address: 0x7F00_0001, port: 8080)))
        #expect(address.ipAddress == "127.0.0.1")
        #expect(address.port == 8080)
        #expect(address.description == "127.0.0.1:8080")
        #expect(address.isLoopback)
        #expect(try SocketAddress(parsing: "0.0.0.0:0").description == "0.0.0.0:0")
    }

    @Test func parsesAndPrintsIPv6() throws {
        let address = try SocketAddress(parsing: "[::1]:8080")
        #expect(address == .v6(.init(high: 0, low: 1, port: 8080)))
        #expect(address.ipAddress == "::1")
        #expect(address.description == "[::1]:8080")
        #expect(address.isLoopback)
        let long = try SocketAddress(ipAddress: "2001:db8::a:1", port: 443)
        #expect(long.description == "[2001:db8::a:1]:443")
        #expect(try SocketAddress(parsing: long.description) == long)
    }

    @Test func keepsTheScopeOfLinkLocalAddresses() throws {
        let address = try SocketAddress(ipAddress: "fe80::1%3", port: 80)
        guard case .v6(let v6) = address else {
            Issue.record("expected IPv6")
            return
        }
        #expect(v6.scopeID == 3)
        #expect(address.description == "[fe80::1%3]:80")
        let named = try SocketAddress(ipAddress: "fe80::1%lo", port: 80)
        guard case .v6(let loopback) = named else {
            Issue.record("expected IPv6")
            return
        }
        #expect(loopback.scopeID != 0)
    }

    @Test(arguments: [
        "127.0.0.1", "::1:80", "[::1]", "[::1]80", "localhost:80", "1.2.3.4:99999", "1.2.3.4:", "1.2.3.4:-1",
        "1.2.3.4:8a", "127.1:80", "[127.0.0.1:80", "",
    ])
    func rejectsWhatIsNotANumericAddressWithPort(_ text: String) {
        #expect(throws: SocketAddressError.self) { try SocketAddress(parsing: text) }
    }

    @Test(arguments: [
        ("127.0.0.1:99999", "port 99999 is out of range 0-65535"),
        ("[::1]:65536", "port 65536 is out of range 0-65535"),
        ("1.2.3.4:123456", "port 123456 is out of range 0-65535"), ("1.2.3.4:8a", "port must be a number 0-65535"),
        ("1.2.3.4:", "port must be a number 0-65535"),
    ])
    func saysWhetherAPortIsOutOfRangeOrNotANumber(_ text: String, reason: String) {
        #expect(throws: SocketAddressError(input: text, reason: reason)) { try SocketAddress(parsing: text) }
    }

    @Test func rejectsPortsOutOfRange() {
        #expect(throws: SocketAddressError.self) { try SocketAddress(ipAddress: "127.0.0.1", port: 65536) }
        #expect(throws: SocketAddressError.self) { try SocketAddress(ipAddress: "127.0.0.1", port: -1) }
        #expect(throws: SocketAddressError.self) { try SocketAddress(ipAddress: "example.com", port: 80) }
    }

    @Test func literalRecognisesOnlyLiterals() {
        #expect(SocketAddress.literal("10.1.2.3", port: 80)?.description == "10.1.2.3:80")
        #expect(SocketAddress.literal("[::1]", port: 80)?.description == "[::1]:80")
        #expect(SocketAddress.literal("::1", port: 80)?.description == "[::1]:80")
        #expect(SocketAddress.literal("localhost", port: 80) == nil)
        #expect(SocketAddress.literal("abc.de", port: 80) == nil)
        #expect(SocketAddress.literal("127.0.0.1", port: 70000) == nil)
    }

    @Test func withPortChangesOnlyThePort() throws {
        let address = try SocketAddress(parsing: "[::1]:1")
        #expect(address.withPort(443).description == "[::1]:443")
        #expect(try SocketAddress(parsing: "1.2.3.4:5").withPort(0).description == "1.2.3.4:0")
    }

    @Test func roundTripsThroughTheKernelRepresentation() throws {
        for text in ["127.0.0.1:80", "[::1]:65535", "[fe80::1%2]:7", "255.255.255.255:1"] {
            let address = try SocketAddress(parsing: text)
            let back = address.withSockAddr { pointer, length in
                SocketAddress(addrinfoAddress: pointer, length: length)
            }
            #expect(back == address)
        }
    }
}
