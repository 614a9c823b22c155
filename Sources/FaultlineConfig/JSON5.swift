/// A JSON5 reader (https://spec.json5.org) that keeps the position of every value and key.
///
/// Accepted beyond JSON: `//` and `/* */` comments, trailing commas, unquoted identifier keys,
/// single-quoted strings, `\x`, `\v`, `\0` and line-continuation escapes, hexadecimal numbers,
/// leading and trailing decimal points, an explicit `+` sign, `Infinity` and `NaN`, and the extra
/// JSON5 white space (NBSP, BOM, Unicode space separators). Strict JSON is a subset, so the same
/// reader parses JSON bodies.
///
/// Beyond the specification, duplicate keys in one object are an error (reported at the second
/// key), nesting is bounded (``defaultMaxDepth``) so hostile input cannot exhaust the stack, and
/// the input must be valid UTF-8 (an invalid byte is reported at its position).
///
/// Positions: lines and columns are 1-based; columns count Unicode scalars. LF, CR, CR LF,
/// U+2028 and U+2029 each end a line (the JSON5 line terminators).
public enum JSON5 {
    /// Arrays and objects nested deeper than this are refused. Configuration files use a handful
    /// of levels; the bound keeps the recursive reader far from the thread's stack limit.
    public static let defaultMaxDepth = 128

    /// Parses one JSON5 document from text. Throws the first syntax error, pointing at the
    /// offending character and saying what was expected there.
    ///
    /// `file` is only used for the locations in the returned nodes and errors.
    public static func parse(_ text: String, file: String, maxDepth: Int = defaultMaxDepth) throws(ConfigError)
        -> ConfigNode
    {
        try parse(Array(text.utf8), file: file, maxDepth: maxDepth)
    }

    /// Parses one JSON5 document from UTF-8 bytes (a file's contents, an HTTP body). Invalid
    /// UTF-8 is an error at the first bad byte.
    public static func parse(_ bytes: [UInt8], file: String, maxDepth: Int = defaultMaxDepth) throws(ConfigError)
        -> ConfigNode
    {
        var parser = JSON5Parser(bytes: bytes, file: file, maxDepth: maxDepth)
        return try parser.parseDocument()
    }
}
