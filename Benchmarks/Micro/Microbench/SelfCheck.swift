import AllocationCounter

/// Proves the interposed allocator sees Swift's allocations before any number is trusted: one
/// 1000-byte array must count exactly one allocation of at least 1000 bytes, and a loop of integer
/// arithmetic none. If not (a static libc, a linker that kept libc's `malloc`), every count below
/// would read zero and mean nothing.
enum SelfCheck {
    struct Outcome {
        let arrayAllocations: UInt64
        let arrayBytes: UInt64
        let arithmeticAllocations: UInt64

        var passed: Bool { arrayAllocations == 1 && arrayBytes >= 1000 && arithmeticAllocations == 0 }
    }

    static func run() -> Outcome {
        func makeArray() {
            let bytes = [UInt8](repeating: 7, count: 1000)
            // Handed to C so the optimizer can neither drop the array nor put it on the stack.
            bytes.withUnsafeBytes { allocation_counter_escape($0.baseAddress) }
        }
        // Once uncounted: the runtime's first use of a type allocates its metadata caches (28
        // allocations when nothing before the check had made an array, as with no arguments).
        makeArray()
        let array = countAllocations { makeArray() }
        var total: UInt64 = 0
        let arithmetic = countAllocations {
            for value in 0..<UInt64(10_000) { total = total &* 31 &+ value }
            withUnsafePointer(to: total) { allocation_counter_escape($0) }
        }
        return Outcome(
            arrayAllocations: array.allocations, arrayBytes: array.bytes, arithmeticAllocations: arithmetic.allocations)
    }
}
