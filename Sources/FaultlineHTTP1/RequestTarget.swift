/// The request-target of a request-line split into its form (RFC 9112 §3.2).
public enum RequestTarget: Sendable, Equatable, CustomStringConvertible {
    /// `absolute-path [ "?" query ]`, the usual form towards an origin server: `"/a/b?x=1"`.
    case origin(path: String, query: String?)
    /// `absolute-URI`, the form sent to a forward proxy: `"http://h:8080/p?q"`. The scheme is
    /// lowercased; the path is `"/"` when the URI has none.
    case absolute(scheme: String, authority: Authority, path: String, query: String?)
    /// `host ":" port`, only for CONNECT.
    case authority(Authority)
    /// `"*"`, only for a server-wide OPTIONS.
    case asterisk

    /// Splits `target` and checks that its form fits `method` (RFC 9112 §3.2): CONNECT needs the
    /// authority-form with a port, `*` is only for OPTIONS, the other methods take the origin- or
    /// absolute-form. Throws ``HTTP1Error/invalidRequestTarget`` for a target in no form and
    /// ``HTTP1Error/requestTargetFormMismatch`` for a form the method does not allow.
    public static func parse(_ target: String, method: String) throws(HTTP1Error) -> RequestTarget {
        var copy = target
        let kind = MethodKind(method)
        // String.withUTF8 is untyped-rethrows, so the error travels out as a Result.
        let result = copy.withUTF8 { bytes -> Result<RequestTarget, HTTP1Error> in
            let parsed: ParsedTarget
            do throws(HTTP1Error) {
                parsed = try TargetParser.parse(bytes, 0, bytes.count, method: kind)
            } catch {
                return .failure(error)
            }
            func text(_ range: Range<Int>) -> String { ASCII.string(bytes, range.lowerBound, range.upperBound) }
            switch parsed.form {
            case .asterisk:
                return .success(.asterisk)
            case .authority:
                return .success(.authority(Authority(host: text(parsed.host), port: parsed.port)))
            case .origin:
                return .success(.origin(path: text(parsed.path), query: parsed.query.map(text)))
            case .absolute:
                return .success(
                    .absolute(
                        scheme: String(decoding: bytes[parsed.scheme].lazy.map(ASCII.lowercased), as: UTF8.self),
                        authority: Authority(host: text(parsed.host), port: parsed.port),
                        path: parsed.path.isEmpty ? "/" : text(parsed.path),
                        query: parsed.query.map(text)))
            }
        }
        return try result.get()
    }

    /// The target as it would appear in a request-line.
    public var description: String {
        switch self {
        case .asterisk: return "*"
        case .authority(let authority): return authority.description
        case .origin(let path, let query): return query.map { "\(path)?\($0)" } ?? path
        case .absolute(let scheme, let authority, let path, let query):
            return "\(scheme)://\(authority)" + (query.map { "\(path)?\($0)" } ?? path)
        }
    }
}
