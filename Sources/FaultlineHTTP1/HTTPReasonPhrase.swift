/// The reason phrase to send with a status code (RFC 9112 §4): the one table the proxy's own
/// responses, rewritten statuses and the control API use.
///
/// Clients ignore the phrase (RFC 9112 §4), but people read it in curl's output and in traces,
/// so a status-line never goes out with it empty (`HTTP/1.1 418 `).
public enum HTTPReasonPhrase {
    /// The registered phrase of `status` in the IANA HTTP Status Code Registry (RFC 9110 §16.2.1,
    /// with the codes of RFC 9110 §15 and the other RFCs registered there), and 418 "I'm a teapot".
    ///
    /// A code without a registered phrase gets the name of its class from RFC 9110 §15: 1xx
    /// "Informational", 2xx "Successful", 3xx "Redirection", 4xx "Client Error", 5xx "Server
    /// Error"; RFC 9110 §15 asks a recipient to treat an unrecognized code as the x00 of its
    /// class, so the class is what the code tells a reader. This covers 306 and the reserved,
    /// unassigned codes, and the temporary registrations (which expire). Outside 100...599 there
    /// is no class (RFC 9110 §15: such values are invalid); the phrase is "Unknown". Never empty.
    public static func standard(for status: Int) -> String {
        registered(status) ?? classPhrase(status)
    }

    private static func classPhrase(_ status: Int) -> String {
        switch status {
        case 100...199: return "Informational"
        case 200...299: return "Successful"
        case 300...399: return "Redirection"
        case 400...499: return "Client Error"
        case 500...599: return "Server Error"
        default: return "Unknown"
        }
    }

    private static func registered(_ status: Int) -> String? {
        switch status {
        // 1xx: RFC 9110 §15.2; 102 RFC 2518 §10.1; 103 RFC 8297.
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 102: return "Processing"
        case 103: return "Early Hints"
        // 2xx: RFC 9110 §15.3; 207 RFC 4918 §11.1; 208 RFC 5842 §7.1; 226 RFC 3229 §10.4.1.
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 203: return "Non-Authoritative Information"
        case 204: return "No Content"
        case 205: return "Reset Content"
        case 206: return "Partial Content"
        case 207: return "Multi-Status"
        case 208: return "Already Reported"
        case 226: return "IM Used"
        // 3xx: RFC 9110 §15.4. 306 is registered as "(Unused)" (§15.4.7), which is not a phrase:
        // it gets the class phrase.
        case 300: return "Multiple Choices"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 305: return "Use Proxy"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        // 4xx: RFC 9110 §15.5; 423 and 424 RFC 4918 §11; 425 RFC 8470 §5.2; 428, 429 and 431
        // RFC 6585; 451 RFC 7725 §3.
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 407: return "Proxy Authentication Required"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        // RFC 9110 §15.5.19 reserves 418 as "(Unused)", which is not a phrase. RFC 2324 §2.3.2's
        // "I'm a teapot" is what people expect to read and what Go's net/http sends (nginx's
        // table has no entry for 418 and sends the bare code).
        case 418: return "I'm a teapot"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 423: return "Locked"
        case 424: return "Failed Dependency"
        case 425: return "Too Early"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 451: return "Unavailable For Legal Reasons"
        // 5xx: RFC 9110 §15.6; 506 RFC 2295 §8.1; 507 RFC 4918 §11.5; 508 RFC 5842 §7.2;
        // 510 RFC 2774 §7 (the registry marks it obsoleted, but the code still means that);
        // 511 RFC 6585 §6.
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 506: return "Variant Also Negotiates"
        case 507: return "Insufficient Storage"
        case 508: return "Loop Detected"
        case 510: return "Not Extended"
        case 511: return "Network Authentication Required"
        default: return nil
        }
    }
}
