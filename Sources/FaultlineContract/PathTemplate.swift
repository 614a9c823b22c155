/// A request path pattern of a contract file: `/jobs/{job}/complete`.
///
/// Segments are compared whole: a literal segment must be equal; `{name}` matches any one
/// non-empty segment and captures it under `name`; `*` matches any one segment without
/// capturing; a final `**` matches the rest of the path (zero or more segments). The path is
/// matched without its query. Captured values are compared as written (still percent-encoded),
/// which is what the trace records.
public struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case anySegment
        case rest
    }

    /// The template as written.
    public let text: String
    let segments: [Segment]

    /// The names of the `{name}` parameters, in order.
    public var parameters: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// Parses a template; throws a message (without position) for a malformed one.
    public init(_ text: String) throws(PathTemplateError) {
        guard text.hasPrefix("/") else { throw PathTemplateError("a path template must start with '/'") }
        var segments: [Segment] = []
        let pieces = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, piece) in pieces.enumerated() {
            if piece == "**" {
                guard index == pieces.count - 1 else { throw PathTemplateError("'**' may only end a path template") }
                segments.append(.rest)
            } else if piece == "*" {
                segments.append(.anySegment)
            } else if piece.hasPrefix("{") {
                guard piece.hasSuffix("}"), piece.count > 2 else {
                    throw PathTemplateError("a parameter must be a whole segment written '{name}', found '\(piece)'")
                }
                let name = String(piece.dropFirst().dropLast())
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    throw PathTemplateError("parameter name '\(name)' may use letters, digits, '_' and '-' only")
                }
                if segments.contains(.parameter(name)) {
                    throw PathTemplateError("parameter '{\(name)}' appears twice")
                }
                segments.append(.parameter(name))
            } else if piece.contains("{") || piece.contains("}") {
                throw PathTemplateError("a parameter must be a whole segment written '{name}', found '\(piece)'")
            } else {
                segments.append(.literal(String(piece)))
            }
        }
        self.text = text
        self.segments = segments
    }

    /// The captured parameters when `path` (without query) matches, else nil.
    public func match(_ path: String) -> [String: String]? {
        guard path.hasPrefix("/") else { return nil }
        let pieces = path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var captures: [String: String] = [:]
        var index = 0
        for segment in segments {
            switch segment {
            case .rest:
                return captures
            case .literal(let literal):
                guard index < pieces.count, pieces[index].elementsEqual(literal.utf8) else { return nil }
            case .parameter(let name):
                guard index < pieces.count, !pieces[index].isEmpty else { return nil }
                captures[name] = String(decoding: pieces[index], as: UTF8.self)
            case .anySegment:
                guard index < pieces.count else { return nil }
            }
            index += 1
        }
        return index == pieces.count ? captures : nil
    }

    public var description: String { text }
}

/// Why a path template cannot be used.
public struct PathTemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One sentence, lower case first.
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
