import FaultlineFlow
import FaultlineRules
import Testing

/// The proxy's own error pages.
@Suite struct ErrorResponseTests {
    @Test func aPageNamesItsCodeAndOnlyA503SaysWhenToComeBack() {
        let busy = ErrorResponse.make(status: 503, code: "connect-queue-full", message: "too many connects")
        #expect(busy.headers.contains { $0.name == "X-Faultline-Error" && $0.value == "connect-queue-full" })
        #expect(busy.headers.filter { $0.name == "Retry-After" }.map(\.value) == ["1"])
        #expect(busy.body == Array("faultline: too many connects\n".utf8))

        for status in [400, 408, 502, 504] {
            let page = ErrorResponse.make(status: status, code: "x", message: "y")
            #expect(!page.headers.contains { $0.name == "Retry-After" }, "status \(status)")
        }
    }
}
