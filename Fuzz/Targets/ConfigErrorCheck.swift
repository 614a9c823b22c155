import FaultlineConfig

/// What holds for a loader's answer to any text: a value exactly when there is no error, and
/// every error placed in the file it read, no further than the text goes.
enum ConfigErrorCheck {
    static func check(loaded: Bool, errors: [ConfigError], file: String, textBytes: Int) {
        fuzzCheck(loaded == errors.isEmpty, "loaded: \(loaded), errors: \(errors.count)")
        for error in errors {
            fuzzCheck(error.location.file == file, "an error in \(error.location.file), not \(file)")
            // A line or column past the text is a position computed wrong (an EOF error sits one past).
            fuzzCheck(
                error.location.line >= 0 && error.location.line <= textBytes + 1 && error.location.column >= 0
                    && error.location.column <= textBytes + 1,
                "an error at \(error.location) in a \(textBytes)-byte text")
        }
    }
}
