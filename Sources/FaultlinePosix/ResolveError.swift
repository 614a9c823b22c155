#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why `HostResolver` could not resolve a name.
public struct ResolveError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; compare with the static members.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case notFound, temporary, failed, shutdown
        }

        private let base: Base

        /// The name does not exist or has no IPv4/IPv6 address (EAI_NONAME and friends).
        public static let notFound = Reason(base: .notFound)
        /// The name server did not answer in time or answered SERVFAIL (EAI_AGAIN): try later.
        public static let temporary = Reason(base: .temporary)
        /// Any other resolver error (see `code`).
        public static let failed = Reason(base: .failed)
        /// The resolver was shut down before the lookup ran.
        public static let shutdown = Reason(base: .shutdown)

        /// The reason in words, as used in `ResolveError.description`.
        public var description: String {
            switch base {
            case .notFound: "not found"
            case .temporary: "temporary failure"
            case .failed: "failed"
            case .shutdown: "resolver shut down"
            }
        }
    }

    /// The host name that failed.
    public let host: String
    /// What kind of failure it was.
    public let reason: Reason
    /// The `getaddrinfo` error code (EAI_*), 0 when none applies.
    public let code: Int32
    /// The C library's text for `code`, or our own.
    public let message: String

    /// The name does not resolve.
    public var isNotFound: Bool { reason == .notFound }

    /// Builds an error; `HostResolver` does this, tests and fakes may too.
    public init(host: String, reason: Reason, code: Int32, message: String) {
        self.host = host
        self.reason = reason
        self.code = code
        self.message = message
    }

    /// `"resolve nonexistent.invalid: not found (Name or service not known)"`.
    public var description: String { "resolve \(host): \(reason) (\(message))" }

    /// Maps a `getaddrinfo` failure.
    static func fromGetaddrinfo(host: String, code: Int32, errno systemErrno: Int32) -> ResolveError {
        let reason: Reason
        switch code {
        case EAI_NONAME, EAI_FAMILY, EAI_SERVICE: reason = .notFound
        case EAI_AGAIN: reason = .temporary
        default: reason = .failed
        }
        var message = gai_strerror(code).map { String(cString: $0) } ?? "getaddrinfo error \(code)"
        if code == EAI_SYSTEM { message += ": " + SystemError(errno: systemErrno, call: "getaddrinfo").description }
        return ResolveError(host: host, reason: reason, code: code, message: message)
    }
}
