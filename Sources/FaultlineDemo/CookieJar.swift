import Foundation
import Synchronization

/// One client stack's cookies: what `Set-Cookie` set (RFC 6265 §5.2, simplified to name=value
/// for one host) and what goes back in `Cookie`. A field with an empty value or `Max-Age` of
/// zero or less deletes its cookie.
final class CookieJar: Sendable {
    private let cookies = Mutex<[(name: String, value: String)]>([])

    /// Applies a response's Set-Cookie fields in order.
    func store(setCookie values: [String]) {
        cookies.withLock { cookies in
            for field in values {
                let attributes = field.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let pair = attributes.first, let equals = pair.firstIndex(of: "=") else { continue }
                let name = String(pair[..<equals])
                let value = String(pair[pair.index(after: equals)...])
                let expired = attributes.dropFirst().contains { attribute in
                    let lowered = attribute.lowercased()
                    guard lowered.hasPrefix("max-age=") else { return false }
                    return (Int(lowered.dropFirst("max-age=".count)) ?? 1) <= 0
                }
                cookies.removeAll { $0.name == name }
                if !value.isEmpty && !expired { cookies.append((name, value)) }
            }
        }
    }

    /// The `Cookie` field value for a request, or nil when the jar is empty.
    var header: String? {
        cookies.withLock { cookies in
            cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        }
    }
}
