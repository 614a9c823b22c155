import Testing
@testable import FaultlineHTTP1
@Test func moduleBuilds() {}
