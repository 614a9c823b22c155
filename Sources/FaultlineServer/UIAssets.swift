/// The web UI's files, compiled into the binary: a page, a style sheet and a script, written by
/// hand and served as they are (no framework, no bundler, nothing fetched from elsewhere).
enum UIAssets {
    /// One file as served.
    struct Asset: Sendable {
        let contentType: String
        let bytes: [UInt8]
    }

    private static let files: [String: Asset] = [
        "index.html": Asset(contentType: "text/html; charset=utf-8", bytes: Array(indexHTML.utf8)),
        "app.css": Asset(contentType: "text/css; charset=utf-8", bytes: Array(styleSheet.utf8)),
        "app.js": Asset(contentType: "text/javascript; charset=utf-8", bytes: Array(script.utf8)),
    ]

    /// The file named `name` (`index.html`, `app.css`, `app.js`), or nil.
    static func named(_ name: String) -> Asset? { files[name] }
}
