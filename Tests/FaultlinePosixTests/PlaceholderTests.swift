import Testing
@testable import FaultlinePosix
@Test func moduleBuilds() {}
