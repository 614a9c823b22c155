import Foundation

/// Traps with `message` when an invariant fails, so libFuzzer saves the input as a crash.
///
/// `precondition` would do the same, but its message is dropped in release builds; the message
/// says which invariant broke, next to the reproducer.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("fuzz invariant failed: \(message())\n".utf8))
    fatalError("fuzz invariant failed")
}
