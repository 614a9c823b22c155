import Testing

@testable import FaultlineCore

@Suite struct OutOfLineTests {
    struct Holder {
        @OutOfLine var numbers: [Int] = [1, 2, 3]
    }

    @Test func aCopyIsIndependentOnceEitherSideWrites() {
        var first = Holder()
        var second = first
        #expect(first.$numbers.storage === second.$numbers.storage)  // shared until a write
        second.numbers.append(4)
        #expect(first.numbers == [1, 2, 3])
        #expect(second.numbers == [1, 2, 3, 4])
        #expect(first.$numbers.storage !== second.$numbers.storage)
        first.numbers[0] = 9
        #expect(first.numbers == [9, 2, 3])
        #expect(second.numbers == [1, 2, 3, 4])
    }

    @Test func aValueWithItsOwnBoxIsWrittenInPlace() {
        var holder = Holder()
        // An identifier, not a reference: holding the box would make it shared. A copy would be
        // made while the old box is still alive, so it could not reuse the old box's address.
        let box = ObjectIdentifier(holder.$numbers.storage)
        holder.numbers.append(4)
        #expect(ObjectIdentifier(holder.$numbers.storage) == box)
    }

    @Test func equalityIsTheValues() {
        #expect(OutOfLine(wrappedValue: [1]) == OutOfLine(wrappedValue: [1]))
        #expect(OutOfLine(wrappedValue: [1]) != OutOfLine(wrappedValue: [2]))
    }
}
