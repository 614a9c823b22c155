/// Which requests a contract declaration is about: a method (or several) and a path template.
///
/// Written in a contract file as `match: { method: "POST", path: "/jobs/{job}/complete" }`;
/// `host` narrows it to one host (case-insensitive) when a trace covers several APIs.
public struct RequestPattern: Sendable, Equatable {
    /// Allowed methods (case-sensitive, RFC 9110 §9.1); empty means any.
    public var methods: [String]
    /// The path template.
    public var path: PathTemplate
    /// The host, lowercased, or nil for any.
    public var host: String?

    /// Makes a pattern.
    public init(methods: [String] = [], path: PathTemplate, host: String? = nil) {
        self.methods = methods
        self.path = path
        self.host = host?.lowercased()
    }

    /// The path parameters when the request matches, else nil.
    func match(method: String, host: String?, path: String) -> [String: String]? {
        if !methods.isEmpty && !methods.contains(method) { return nil }
        if let wanted = self.host, host?.lowercased() != wanted { return nil }
        return self.path.match(path)
    }

    /// `POST /jobs/{job}/complete`, for messages.
    var summary: String {
        (methods.isEmpty ? "*" : methods.joined(separator: "|")) + " " + path.text
    }
}
