import FaultlineHTTP1
import Testing

/// The one reason-phrase table: registered phrases, and a class phrase for everything else.
@Suite struct HTTPReasonPhraseTests {
    /// The tables `ErrorResponse` and `ControlConnection` had before they used this one: a
    /// status they sent keeps its phrase.
    static let earlierPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
        206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 422: "Unprocessable Content",
        425: "Too Early", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 508: "Loop Detected",
    ]

    @Test func everyEarlierPhraseIsKept() {
        for (status, phrase) in Self.earlierPhrases.sorted(by: { $0.key < $1.key }) {
            #expect(HTTPReasonPhrase.standard(for: status) == phrase, "\(status)")
        }
    }

    @Test(arguments: [
        (418, "I'm a teapot"), (451, "Unavailable For Legal Reasons"), (503, "Service Unavailable"),
        (103, "Early Hints"),
        (207, "Multi-Status"), (226, "IM Used"), (402, "Payment Required"), (416, "Range Not Satisfiable"),
        (421, "Misdirected Request"), (426, "Upgrade Required"), (506, "Variant Also Negotiates"),
        (510, "Not Extended"), (511, "Network Authentication Required"),
    ])
    func registeredCodesHaveTheirPhrase(_ status: Int, _ phrase: String) {
        #expect(HTTPReasonPhrase.standard(for: status) == phrase)
    }

    /// RFC 9110 §15's class names, for codes without a phrase of their own.
    @Test(arguments: [
        (199, "Informational"), (104, "Informational"), (299, "Successful"), (209, "Successful"), (306, "Redirection"),
        (399, "Redirection"), (419, "Client Error"), (499, "Client Error"), (509, "Server Error"),
        (599, "Server Error"),
        (600, "Unknown"), (999, "Unknown"), (99, "Unknown"), (0, "Unknown"), (-1, "Unknown"),
    ])
    func unregisteredCodesHaveTheirClassPhrase(_ status: Int, _ phrase: String) {
        #expect(HTTPReasonPhrase.standard(for: status) == phrase)
    }

    /// Every code a status-line can carry (RFC 9112 §4: three digits) gets a phrase that is
    /// non-empty and made only of the bytes a reason-phrase allows (HTAB, SP, VCHAR).
    @Test func everyPhraseIsNonEmptyAndValidOnTheWire() {
        for status in 100...999 {
            let phrase = HTTPReasonPhrase.standard(for: status)
            #expect(!phrase.isEmpty, "\(status)")
            #expect(phrase.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) }, "\(status): \(phrase)")
        }
    }

    /// The registry's count: a code dropped from (or added to) the switch shows here.
    @Test func theRegisteredCodesAreTheRegistrysCodes() {
        let classPhrases: Set = ["Informational", "Successful", "Redirection", "Client Error", "Server Error"]
        let registered = (100...599).filter { !classPhrases.contains(HTTPReasonPhrase.standard(for: $0)) }
        #expect(
            registered == [
                100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307,
                308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421,
                422, 423, 424, 425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
            ])
    }
}
