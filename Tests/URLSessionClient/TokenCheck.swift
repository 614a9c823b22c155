// The client's `--token-check` mode: what an app that decodes its tokens does with a token answer.
// It fetches the answer (a POST of `--form` when given, else a GET), takes the JWT in the JSON
// member `--field` (default `id_token`), decodes its payload (base64url, RFC 7515 §2 and §7.1)
// without checking the signature, and judges `exp` and `nbf` (RFC 7519 §4.1.4, §4.1.5) against
// its own clock, `--now` epoch seconds, with `--leeway` seconds of skew allowed (default 60).
// It prints one line, `STATUS VERDICT exp=EXP nbf=NBF`, VERDICT being `accepted`, `expired` or
// `not-yet-valid`; never the token. Exits 1 on a transport error or an answer without a JWT there.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum TokenCheck {
    struct Options {
        var url: URL
        var now: Int
        var form: String?
        var field = "id_token"
        var leeway = 60
    }

    static let usage =
        "usage: faultline-urlsession-client --token-check --now EPOCH [--form BODY] [--field NAME] [--leeway S] URL\n"

    /// The options after `--token-check`; nil when they do not parse.
    static func parse(_ arguments: [String]) -> Options? {
        var now: Int?
        var url: URL?
        var form: String?
        var field: String?
        var leeway: Int?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--now": now = rest.popFirst().flatMap { Int($0) }
            case "--form": form = rest.popFirst()
            case "--field": field = rest.popFirst()
            case "--leeway": leeway = rest.popFirst().flatMap { Int($0) }
            default:
                guard url == nil, !argument.hasPrefix("--") else { return nil }
                url = URL(string: argument)
            }
        }
        guard let now, let url else { return nil }
        var options = Options(url: url, now: now, form: form)
        if let field { options.field = field }
        if let leeway { options.leeway = leeway }
        return options
    }

    /// Runs the check; returns the exit status.
    static func run(_ options: Options, session: URLSession) async -> Int32 {
        var request = URLRequest(url: options.url)
        if let form = options.form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        let body: Data
        let status: Int
        do {
            let (data, response) = try await session.data(for: request)
            body = data
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } catch {
            FileHandle.standardError.write(Data("\(options.url): \(error)\n".utf8))
            return 1
        }
        guard let answer = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let token = answer[options.field] as? String, let claims = payload(of: token)
        else {
            FileHandle.standardError.write(Data("\(status): no JWT in the answer's \(options.field)\n".utf8))
            return 1
        }
        let exp = (claims["exp"] as? NSNumber)?.intValue
        let nbf = (claims["nbf"] as? NSNumber)?.intValue
        let verdict = judge(exp: exp, nbf: nbf, now: options.now, leeway: options.leeway)
        print("\(status) \(verdict) exp=\(exp.map(String.init) ?? "none") nbf=\(nbf.map(String.init) ?? "none")")
        return 0
    }

    /// RFC 7519 §4.1.4: not accepted on or after `exp`; §4.1.5: not before `nbf`; each with
    /// `leeway` seconds for clock skew.
    static func judge(exp: Int?, nbf: Int?, now: Int, leeway: Int) -> String {
        if let exp, now >= exp + leeway { return "expired" }
        if let nbf, now < nbf - leeway { return "not-yet-valid" }
        return "accepted"
    }

    /// The JWS payload of a compact JWT as a JSON object: its second part, base64url without
    /// padding (RFC 7515 §2), made standard base64 for Foundation.
    static func payload(of token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}
