/// The web UI's files, embedded in the binary from `UI/` (SwiftPM's `.embedInCode` resources, so
/// the single static binary still carries them): a page, a style sheet and a script, written by
/// hand and served as they are (no framework, no bundler, nothing fetched from elsewhere).
enum UIAssets {
    /// One file as served.
    struct Asset: Sendable {
        let contentType: String
        let bytes: [UInt8]
    }

    /// `app.js` is written in parts by concern (`UI/app-*.js`) and served as one file, the parts
    /// joined in this order.
    private static let scriptParts = [
        PackageResources.app_core_js, PackageResources.app_flows_js, PackageResources.app_panels_js,
        PackageResources.app_lanes_js, PackageResources.app_start_js,
    ]

    private static let files: [String: Asset] = [
        "index.html": Asset(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
        "app.css": Asset(contentType: "text/css; charset=utf-8", bytes: PackageResources.app_css),
        "app.js": Asset(
            contentType: "text/javascript; charset=utf-8", bytes: Array(scriptParts.joined(separator: [0x0A]))),
    ]

    /// The file named `name` (`index.html`, `app.css`, `app.js`), or nil.
    static func named(_ name: String) -> Asset? { files[name] }
}
