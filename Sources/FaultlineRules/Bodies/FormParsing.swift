import FaultlineCore

/// Name/value pairs from a query string or an `application/x-www-form-urlencoded` body.
///
/// The two differ in one place, and on purpose:
/// - **form bodies** decode `+` as a space (WHATWG URL "application/x-www-form-urlencoded
///   parsing", which is what RFC 6749 §4.1.3/§6 token requests use);
/// - **query strings** keep `+` literal: RFC 3986 §2.2 gives `+` no meaning, and Apple's
///   `URLComponents` (the clients this proxy tests) sends a literal `+` unescaped and a space as
///   `%20`. A rule that must accept both can use a regex such as `^a[+ ]b$`.
///
/// Both percent-decode (RFC 3986 §2.1); an invalid escape such as `%zz` stays as written, and
/// bytes that are not UTF-8 become U+FFFD.
enum FormParsing {
    /// Parses `a=1&b=2&flag`: a pair without `=` has the empty value; empty pieces are skipped.
    static func fields(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: String
            let value: String
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                name = percentDecoded(piece[..<equals], plusAsSpace: plusAsSpace)
                value = percentDecoded(piece[piece.index(after: equals)...], plusAsSpace: plusAsSpace)
            } else {
                name = percentDecoded(piece, plusAsSpace: plusAsSpace)
                value = ""
            }
            result[name, default: []].append(value)
        }
        return result
    }

    /// Query parameters of a raw query (without `?`); `+` stays `+`.
    static func queryParameters(_ query: String) -> [String: [String]] {
        fields(Array(query.utf8), plusAsSpace: false)
    }

    /// Fields of a form body; `+` is a space.
    static func formFields(_ body: [UInt8]) -> [String: [String]] {
        fields(body, plusAsSpace: true)
    }

    static func percentDecoded(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let byte = input[i]
            if byte == UInt8(ascii: "%"), i + 2 < input.count,
                let high = HexDigit.value(input[i + 1]), let low = HexDigit.value(input[i + 2])
            {
                output.append(high << 4 | low)
                i += 3
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
