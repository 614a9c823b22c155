import FaultlineTLS

/// `ClientHelloPeek.inspect`, which the proxy calls on a tunnel's first bytes, again on every
/// read, each time from the first byte. So besides never trapping, what it says must not go
/// back on itself as bytes arrive: a verdict on a prefix (TLS with these names, or not TLS) is
/// the verdict on the whole input, and when the whole input still needs bytes, so did every prefix.
enum ClientHelloFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let whole = ClientHelloPeek.inspect(bytes)
        var plan = SplitPlan(input, salt: 4)
        // A few prefixes, not all: inspect reads from the start, so every prefix would be quadratic.
        for _ in 0..<min(bytes.count, 8) {
            let prefix = ClientHelloPeek.inspect(Array(bytes[..<plan.below(bytes.count)]))
            switch (prefix, whole) {
            case (.needMoreBytes, _):
                break
            case (.notTLS, .notTLS):
                break
            case (.tls, _):
                fuzzCheck(prefix == whole, "a prefix read as \(prefix), the whole as \(whole)")
            case (.notTLS, _):
                fuzzCheck(false, "a prefix read as \(prefix), the whole as \(whole)")
            }
        }
    }
}
