import Testing
@testable import FaultlineServer
@Test func moduleBuilds() {}
