import Foundation

// libFuzzer's entry point. One binary holds every target, chosen by FAULTLINE_FUZZ_TARGET
// (Scripts/fuzz sets it): one instrumented build and one link serve them all, where a binary
// per target would link the same sanitized modules a dozen times over. libFuzzer owns the
// command line (its flags and corpus folders), so the choice travels in the environment.

/// The target this process runs, read once from `FAULTLINE_FUZZ_TARGET`.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FAULTLINE_FUZZ_TARGET"] ?? ""
    if let target = FuzzTarget.named(name) { return target }
    if name == "--list" {
        // Scripts/fuzz --list and `all` read the targets from here, the one table of them.
        for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
        print("\(FuzzTarget.planted.name)\t\(FuzzTarget.planted.summary) (CI's check; not in `all`)")
        exit(0)
    }
    let names = (FuzzTarget.all + [FuzzTarget.planted]).map(\.name).joined(separator: " ")
    FileHandle.standardError.write(Data("faultline-fuzz: set FAULTLINE_FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
}()

/// Called by libFuzzer once before the first input: the target is chosen (or the process ends
/// with the list of targets) here, where exiting is not mistaken for a crash of an input.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = selectedTarget
    return 0
}

/// Called by libFuzzer once per input; a trap (a failed invariant, a Swift runtime check, an
/// AddressSanitizer report) is what it counts as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
