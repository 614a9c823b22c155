import Testing

@testable import FaultlineHTTP1

/// The bytes of an ASCII string.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// One decoded step, with body bytes copied out so transcripts compare across split points.
/// Consecutive body events are merged: where a body is cut depends on how bytes arrived.
enum Item: Equatable, CustomStringConvertible {
    case interim(HTTPResponseHead)
    case requestHead(HTTPRequestHead)
    case responseHead(HTTPResponseHead)
    case body([UInt8])
    case end(HTTPHeaders?)
    /// The decoder threw this error (and nothing is decoded after it).
    case error(code: String, status: Int)
    /// Bytes still buffered once everything was fed (a tunnel's bytes, for instance).
    case rest([UInt8])

    var description: String {
        switch self {
        case .interim(let head): return "interim(\(head.status))"
        case .requestHead(let head):
            return "head(\(head.method) \(head.target) \(head.headers.map { "\($0.name)=\($0.value)" }))"
        case .responseHead(let head): return "head(\(head.status) \(head.headers.map { "\($0.name)=\($0.value)" }))"
        case .body(let bytes): return "body(\(String(decoding: bytes, as: UTF8.self).debugDescription))"
        case .end(let trailers): return "end(\(trailers.map { "\($0.map { "\($0.name)=\($0.value)" })" } ?? "nil"))"
        case .error(let code, let status): return "error(\(code), \(status))"
        case .rest(let bytes): return "rest(\(String(decoding: bytes, as: UTF8.self).debugDescription))"
        }
    }
}

/// Something that decodes a byte stream into items, so one harness serves both decoders.
protocol ItemDecoder {
    mutating func feed(_ bytes: [UInt8])
    mutating func feedEOF()
    /// The next item, nil when the decoder needs more bytes; an `.error` item when it threw.
    mutating func nextItem() -> Item?
    mutating func rest() -> [UInt8]
}

struct RequestItemDecoder: ItemDecoder {
    var decoder: HTTP1RequestDecoder

    init(limits: HTTP1Limits = .default) { decoder = HTTP1RequestDecoder(limits: limits) }

    mutating func feed(_ bytes: [UInt8]) { decoder.receive(bytes) }
    mutating func feedEOF() { decoder.receiveEOF() }
    mutating func rest() -> [UInt8] { decoder.takeBufferedBytes() }

    mutating func nextItem() -> Item? {
        do {
            switch try decoder.nextEvent() {
            case nil: return nil
            case .head(let head): return .requestHead(head)
            case .body(let slice): return .body(Array(slice))
            case .end(let trailers): return .end(trailers)
            }
        } catch {
            // The error state is sticky: the same error comes back.
            #expect(throws: error) { try decoder.nextEvent() }
            return .error(code: error.code, status: error.status)
        }
    }
}

struct ResponseItemDecoder: ItemDecoder {
    var decoder: HTTP1ResponseDecoder

    init(methods: [String], limits: HTTP1Limits = .default) {
        decoder = HTTP1ResponseDecoder(limits: limits)
        for method in methods { decoder.expectResponse(toMethod: method) }
    }

    mutating func feed(_ bytes: [UInt8]) { decoder.receive(bytes) }
    mutating func feedEOF() { decoder.receiveEOF() }
    mutating func rest() -> [UInt8] { decoder.takeBufferedBytes() }

    mutating func nextItem() -> Item? {
        do {
            switch try decoder.nextEvent() {
            case nil: return nil
            case .interim(let head): return .interim(head)
            case .head(let head): return .responseHead(head)
            case .body(let slice): return .body(Array(slice))
            case .end(let trailers): return .end(trailers)
            }
        } catch {
            #expect(throws: error) { try decoder.nextEvent() }
            return .error(code: error.code, status: error.status)
        }
    }
}

/// Feeds `pieces` one after the other, draining events after each, then EOF if asked.
func transcript<D: ItemDecoder>(_ decoder: D, pieces: [[UInt8]], eof: Bool) -> [Item] {
    var decoder = decoder
    var items: [Item] = []
    var failed = false
    func drain() {
        // A decoder that returns events forever is a bug: bound the loop.
        var budget = 100_000
        while !failed, budget > 0, let item = decoder.nextItem() {
            budget -= 1
            if case .body(let more) = item, case .body(let earlier)? = items.last {
                items[items.count - 1] = .body(earlier + more)
            } else {
                items.append(item)
            }
            if case .error = item { failed = true }
        }
        #expect(budget > 0, "decoder kept returning events")
    }
    for piece in pieces {
        decoder.feed(piece)
        drain()
    }
    if eof {
        decoder.feedEOF()
        drain()
    }
    if !failed {
        let rest = decoder.rest()
        if !rest.isEmpty { items.append(.rest(rest)) }
    }
    return items
}

/// Decodes `input` whole, split in two at every point, and byte by byte; expects the same
/// transcript each time and returns it.
@discardableResult
func decodeAtEverySplit<D: ItemDecoder>(
    _ makeDecoder: @autoclosure () -> D, _ input: [UInt8], eof: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [Item] {
    let whole = transcript(makeDecoder(), pieces: [input], eof: eof)
    for split in 0...input.count {
        let pieces = [Array(input[..<split]), Array(input[split...])]
        let items = transcript(makeDecoder(), pieces: pieces, eof: eof)
        if items != whole {
            Issue.record("split at \(split) gave \(items), whole gave \(whole)", sourceLocation: sourceLocation)
            break
        }
    }
    let byteByByte = transcript(makeDecoder(), pieces: input.map { [$0] }, eof: eof)
    #expect(byteByByte == whole, "byte by byte", sourceLocation: sourceLocation)
    return whole
}

/// Request transcript at every split point.
@discardableResult
func decodeRequests(
    _ text: String, eof: Bool = false, limits: HTTP1Limits = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [Item] {
    decodeAtEverySplit(RequestItemDecoder(limits: limits), bytes(text), eof: eof, sourceLocation: sourceLocation)
}

/// Response transcript at every split point, with one expected response per method.
@discardableResult
func decodeResponses(
    _ text: String, to methods: [String] = ["GET"], eof: Bool = false, limits: HTTP1Limits = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [Item] {
    decodeAtEverySplit(
        ResponseItemDecoder(methods: methods, limits: limits), bytes(text), eof: eof, sourceLocation: sourceLocation)
}

/// The error item a transcript ends with, if any.
func finalError(_ items: [Item]) -> (code: String, status: Int)? {
    if case .error(let code, let status)? = items.last { return (code, status) }
    return nil
}
