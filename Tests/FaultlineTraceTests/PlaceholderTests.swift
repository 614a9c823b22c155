import Testing
@testable import FaultlineTrace
@Test func moduleBuilds() {}
