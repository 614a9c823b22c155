import Testing
@testable import FaultlineProxy
@Test func moduleBuilds() {}
