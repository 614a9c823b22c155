import FaultlineHTTP1

/// `HTTP1RequestDecoder`: one keep-alive request's bytes in, its events out (head, end). One
/// decoder for every iteration, as a client connection keeps one.
struct RequestDecoderPiece: Piece {
    static let name = "HTTP1RequestDecoder"
    private var decoder = HTTP1RequestDecoder()
    private var completed = 0

    mutating func iterate() {
        Fixtures.requestBytes.withUnsafeBytes { decoder.receive($0) }
        while true {
            let event: HTTP1RequestEvent?
            do {
                event = try decoder.nextEvent()
            } catch {
                fatalError("the fixture request does not decode: \(error)")
            }
            guard let event else { return }
            if case .end = event { completed += 1 }
        }
    }

    func failure(afterIterations count: Int) -> String? {
        completed == count ? nil : "\(completed) requests decoded in \(count) iterations"
    }
}

/// `HTTP1ResponseDecoder`: one 200 with a 100-byte body in, its events out (head, body, end).
/// One decoder for every iteration, as a pooled upstream connection keeps one.
struct ResponseDecoderPiece: Piece {
    static let name = "HTTP1ResponseDecoder"
    private var decoder = HTTP1ResponseDecoder()
    private var completed = 0
    private var bodyBytes = 0

    mutating func iterate() {
        decoder.expectResponse(toMethod: "GET")
        Fixtures.responseBytes.withUnsafeBytes { decoder.receive($0) }
        while true {
            let event: HTTP1ResponseEvent?
            do {
                event = try decoder.nextEvent()
            } catch {
                fatalError("the fixture response does not decode: \(error)")
            }
            switch event {
            case nil: return
            case .body(let bytes): bodyBytes += bytes.count
            case .end: completed += 1
            case .head, .interim: break
            }
        }
    }

    func failure(afterIterations count: Int) -> String? {
        guard completed == count, bodyBytes == count * Fixtures.responseBody.count else {
            return "\(completed) responses, \(bodyBytes) body bytes in \(count) iterations"
        }
        return nil
    }
}
