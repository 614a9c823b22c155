import Testing
@testable import FaultlineRules
