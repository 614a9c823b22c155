import FaultlineHTTP1

/// What an HTTP/1 decoder said, with consecutive body pieces joined: runs fed the same bytes in
/// different pieces must then compare equal.
enum DecodedEvent<Head: Equatable>: Equatable {
    case interim(Head)
    case head(Head)
    case body([UInt8])
    case end(trailers: HTTPHeaders?)
}

/// The request and response decoders seen through one shape, so one driver checks both.
protocol IncrementalHTTP1Decoder {
    associatedtype Head: Equatable
    mutating func feed(_ bytes: UnsafeRawBufferPointer)
    mutating func feedEOF()
    mutating func next() throws(HTTP1Error) -> DecodedEvent<Head>?
}

/// One decoder run over one input.
struct DecodeRun<Head: Equatable> {
    var events: [DecodedEvent<Head>] = []
    var error: HTTP1Error?
}

enum HTTP1Decoding {
    /// Feeds `input` to `decoder` in `pieces` (then EOF), taking every event after each piece, and
    /// checks what holds whatever the bytes: body pieces are never empty, never more body bytes
    /// than bytes fed, a body or an end only inside a message, and after an error the decoder
    /// keeps throwing that same error.
    static func run<Decoder: IncrementalHTTP1Decoder>(
        _ decoder: inout Decoder, _ input: UnsafeRawBufferPointer, pieces: [Range<Int>]
    ) -> DecodeRun<Decoder.Head> {
        var run = DecodeRun<Decoder.Head>()
        var fed = 0
        var bodyBytes = 0
        var inMessage = false
        func drain() -> Bool {
            while true {
                let event: DecodedEvent<Decoder.Head>?
                do throws(HTTP1Error) {
                    event = try decoder.next()
                } catch {
                    run.error = error
                    do throws(HTTP1Error) {
                        _ = try decoder.next()
                        fuzzCheck(false, "the decoder went on after \(error.code)")
                    } catch {
                        fuzzCheck(error == run.error, "a second error \(error.code) after \(run.error?.code ?? "")")
                    }
                    return false
                }
                guard let event else { return true }
                switch event {
                case .interim:
                    fuzzCheck(!inMessage, "an interim head inside a message")
                    run.events.append(event)
                case .head:
                    fuzzCheck(!inMessage, "a head inside a message")
                    inMessage = true
                    run.events.append(event)
                case .body(let bytes):
                    fuzzCheck(inMessage, "body bytes outside a message")
                    fuzzCheck(!bytes.isEmpty, "an empty body event")
                    bodyBytes += bytes.count
                    fuzzCheck(bodyBytes <= fed, "\(bodyBytes) body bytes from \(fed) bytes fed")
                    if case .body(let earlier)? = run.events.last {
                        run.events[run.events.count - 1] = .body(earlier + bytes)
                    } else {
                        run.events.append(event)
                    }
                case .end:
                    fuzzCheck(inMessage, "an end outside a message")
                    inMessage = false
                    run.events.append(event)
                }
            }
        }
        for piece in pieces {
            decoder.feed(UnsafeRawBufferPointer(rebasing: input[piece]))
            fed += piece.count
            guard drain() else { return run }
        }
        decoder.feedEOF()
        _ = drain()
        return run
    }

    /// Decodes `input` whole and in the pieces `plan` draws, with a fresh decoder from `make`
    /// each time, and checks the two agree: the split must not change what the bytes mean.
    /// When either fails, both must (the error may differ: a limit can trip before the byte that
    /// would have been refused whole).
    static func compareWholeAndSplit<Decoder: IncrementalHTTP1Decoder>(
        _ input: UnsafeRawBufferPointer, make: () -> Decoder
    ) {
        var plan = SplitPlan(input)
        var whole = make()
        let wholeRun = run(&whole, input, pieces: input.isEmpty ? [] : [0..<input.count])
        var split = make()
        let splitRun = run(&split, input, pieces: plan.pieces(input.count))
        fuzzCheck(
            (wholeRun.error == nil) == (splitRun.error == nil),
            "whole: \(wholeRun.error?.code ?? "no error"), split: \(splitRun.error?.code ?? "no error")")
        if wholeRun.error == nil {
            fuzzCheck(wholeRun.events == splitRun.events, "whole and split inputs decoded differently")
        }
    }
}
