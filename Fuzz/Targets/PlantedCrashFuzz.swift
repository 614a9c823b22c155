import FaultlineHTTP1

/// A deliberately broken copy of the request target's driver, for CI to prove that a crash
/// fails `Scripts/fuzz` and leaves a reproducer: a request whose method is `PLANT` makes it read
/// past the end of an array, the trap a real indexing bug would hit. Its seed corpus holds such
/// a request, so the crash is found at once. `Scripts/fuzz all` leaves it out.
enum PlantedCrashFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(input)
        decoder.receiveEOF()
        while let event = try? decoder.nextEvent() {
            if case .head(let head) = event, head.method == "PLANT" {
                let fields = Array(head.headers)
                _ = fields[fields.count]
            }
        }
    }
}
