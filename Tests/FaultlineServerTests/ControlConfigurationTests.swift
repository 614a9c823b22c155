import FaultlinePosix
import FaultlineServer
import Testing

/// Which control addresses `faultline run` warns about: every one that is not loopback.
@Suite struct ControlConfigurationTests {
    @Test(arguments: ["127.0.0.1:0", "127.1.2.3:9090", "[::1]:9090"])
    func loopbackIsNotReachableBeyondIt(_ text: String) throws {
        let configuration = ControlConfiguration(address: try SocketAddress(parsing: text), token: "t")
        #expect(!configuration.isReachableBeyondLoopback)
    }

    @Test(arguments: ["0.0.0.0:9090", "[::]:9090", "10.0.0.7:9090", "[fe80::1%1]:9090", "128.0.0.1:1"])
    func everyOtherAddressIs(_ text: String) throws {
        let configuration = ControlConfiguration(address: try SocketAddress(parsing: text), token: "t")
        #expect(configuration.isReachableBeyondLoopback)
    }
}
