import FaultlineCore
import Testing

@Test func distancesCountEdits() {
    #expect(EditDistance.between("listen", "listen") == 0)
    #expect(EditDistance.between("lisen", "listen") == 1)
    #expect(EditDistance.between("", "abc") == 3)
    #expect(EditDistance.between("kitten", "sitting") == 3)
}

@Test func nearestSuggestsOnlyPlausibleTypos() {
    let options = ["--listen", "--mode", "--trace"]
    #expect(EditDistance.nearest(to: "--lisen", in: options) == "--listen")
    #expect(EditDistance.nearest(to: "--trcae", in: options) == "--trace")
    #expect(EditDistance.nearest(to: "--verbose", in: options) == nil)
}
