import Testing
@testable import FaultlineConfig
@Test func moduleBuilds() {}
