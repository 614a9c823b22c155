import Testing
@testable import FaultlineRules
@Test func moduleBuilds() {}
