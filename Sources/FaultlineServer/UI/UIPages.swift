import FaultlineCore
import FaultlineHTTP1

/// The fields every web UI answer carries, and the small pages it answers errors with.
enum UIPages {
    /// Scripts, styles and connections from this listener only, no framing, no MIME sniffing,
    /// and no `Referer` (the login address carries a ticket).
    static let securityHeaders: HTTPHeaders = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    /// A page that says one thing: its `title` and `text`, escaped.
    static func message(status: Int, title: String, text: String) -> ControlReply {
        let page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Faultline: \(escape(title))</title></head>
            <body style="font:15px sans-serif;margin:40px"><h1>\(escape(title))</h1><p>\(escape(text))</p></body></html>

            """
        return .document(
            status: status, contentType: "text/html; charset=utf-8", body: Array(page.utf8), headers: securityHeaders)
    }

    private static func escape(_ text: String) -> String { MarkupEscaping.escaped(text) }
}
