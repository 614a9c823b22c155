import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Foundation

/// Reads a HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/) into a `Capture`.
///
/// Each entry becomes an exchange whose request is both what the client sent and what went
/// upstream (a HAR has one request; its body is the upstream request's, as in any capture),
/// answered by the entry's response with its body. The steps'
/// times come from `startedDateTime` and `timings`, and their `seq` numbers from that order.
/// Entries without a response (status 0, as mitmproxy writes a failed upstream connection) and
/// `CONNECT` tunnels are skipped, each with a note in `Capture.notes`. Errors name the entry and
/// the field: `FILE: entries[3].request.url: not an absolute http(s) URL`.
///
/// A HAR holds whatever its tool wrote, and mitmproxy and browsers write credentials in clear:
/// the capture's secrets are `.kept` unless every secret-bearing value is a pseudonym or a
/// fingerprint already (`SecretStandIns`), as in a HAR faultline exported.
public enum HARImporter {
    /// True when `bytes` hold a JSON object with a `log` member, not a trace's header line.
    public static func looksLikeHAR(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            first == UInt8(ascii: "{")
        else { return false }
        let firstLine = bytes.prefix { $0 != 0x0A }
        return !String(decoding: firstLine, as: UTF8.self).contains("\"faultline_trace\"")
    }

    /// The capture a HAR file describes.
    public static func capture(fromHAR bytes: [UInt8], source: String) throws(CaptureLoadError) -> Capture {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw CaptureLoadError(
                "\(source): not valid JSON: line \(error.line), column \(error.column): \(error.message)")
        }
        let log = try HARField.document(document, source: source).required("log")
        if let version = log.member("version"), try version.string().split(separator: ".").first != "1" {
            throw version.problem("HAR \(try version.string()) is not HAR 1.x")
        }
        // HAR 1.2, "Custom Fields": a parser ignores custom fields of files other tools wrote.
        let ownFile = log.member("creator")?.member("name")?.value.stringValue == HARExporter.creatorName
        var notes = NoteBook(source: source)
        var entries: [Entry] = []
        for (index, element) in try log.required("entries").elements().enumerated() {
            let field = HARField(value: element.value, path: "entries[\(index)]", source: source)
            if let entry = try Entry(field, index: index, ownFile: ownFile, notes: &notes) {
                if let other = entries.first(where: { $0.flow == entry.flow }) {
                    throw field.problem("_faultline.flow \(entry.flow) is also \(other.path)'s flow")
                }
                entries.append(entry)
            }
        }
        let exchanges = Timeline.exchanges(of: entries)
        let declared =
            ownFile ? log.member("_faultline")?.member("secrets")?.value.stringValue.flatMap(Capture.Secrets.init) : nil
        let hasBodies =
            (ownFile ? log.member("_faultline")?.member("bodies")?.value.boolValue : nil) ?? !entries.contains {
                $0.bodyMissing
            }
        return Capture(
            source: source, secrets: secrets(of: exchanges, declared: declared), hasBodies: hasBodies,
            exchanges: exchanges, timeline: Timeline.timeline(of: exchanges),
            created: entries.map(\.start).min()?.rfc3339, notes: notes.lines)
    }

    /// Raw unless every secret seen is a stand-in and there is evidence of stand-ins (some were
    /// seen, or faultline's own file says so): a file with no secret in sight may still carry
    /// them where no rule finds them, so it is treated as raw.
    static func secrets(of exchanges: [CapturedExchange], declared: Capture.Secrets?) -> Capture.Secrets {
        let census = SecretStandIns(exchanges)
        guard census.raw == 0 else { return .kept }
        if let declared { return declared }
        if census.pseudonyms > 0 { return .pseudonyms }
        return census.fingerprints > 0 ? .fingerprints : .kept
    }

    /// One entry, read and checked, before its steps get their place in the capture's order.
    struct Entry {
        let path: String
        let start: WallTime
        let timings: HARTimings
        var flow: Int64
        var connection: Int64?
        var role: String?
        var lineage: String?
        var credentials: [String] = []
        var duplicateOf: Int64?
        var synthetic = false
        var deliveredStatus: Int
        var request: CapturedRequest
        var response: CapturedResponse?
        /// The response had a body the file does not hold (`content` without `text`).
        var bodyMissing = false

        /// Nil for an entry that is skipped (its note is in `notes`).
        init?(_ entry: HARField, index: Int, ownFile: Bool, notes: inout NoteBook) throws(CaptureLoadError) {
            path = entry.path
            let requestField = try entry.required("request")
            let responseField = try entry.required("response")
            let statusField = try responseField.required("status")
            let status = try statusField.integer()
            let methodField = try requestField.required("method")
            let method = try methodField.string()
            guard status != 0 else {
                notes.add(
                    "no response (status 0: the recording tool's request failed, e.g. an unreachable upstream); skipped",
                    index)
                return nil
            }
            guard method.uppercased() != "CONNECT" else {
                notes.add("a CONNECT tunnel, not an HTTP exchange; skipped", index)
                return nil
            }
            guard (100...999).contains(status) else {
                throw statusField.problem("\(status) is not an HTTP status code")
            }
            guard !method.isEmpty, method.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw methodField.problem("'\(method)' is not an HTTP method")
            }
            let startField = try entry.required("startedDateTime")
            guard let start = WallTime(iso8601: try startField.string()) else {
                throw startField.problem("not an ISO 8601 date and time (YYYY-MM-DDThh:mm:ss.sTZD)")
            }
            self.start = start
            timings = try HARTimings(reading: entry.member("timings"), time: entry.member("time"))
            flow = Int64(index + 1)
            if let text = entry.member("connection")?.value.stringValue { connection = Int64(text) }
            request = try Self.request(requestField, method: method, ownFile: ownFile, index: index, notes: &notes)
            deliveredStatus = Int(status)
            if ownFile, let faultline = entry.member("_faultline") { try readFaultlineFields(faultline) }
            if synthetic {
                // The proxy answered: the file has its status, and nothing went upstream.
                return
            }
            var (response, bodyMissing) = try Self.response(
                responseField, status: Int(status), ownFile: ownFile, index: index, notes: &notes)
            // A pseudonym's length is not the secret's, so whether faultline cut a body is said
            // in its own fields, not read off the lengths.
            let ownFlags = ownFile ? entry.member("_faultline") : nil
            if ownFlags?.member("responseBodyTruncated")?.value.boolValue == true { response.body?.truncated = true }
            if ownFlags?.member("requestBodyTruncated")?.value.boolValue == true { request.body?.truncated = true }
            self.response = response
            self.bodyMissing = bodyMissing
        }

        /// faultline's own IDs and facts (written by `HARExporter`).
        private mutating func readFaultlineFields(_ faultline: HARField) throws(CaptureLoadError) {
            if let field = faultline.member("flow") { flow = try field.integer() }
            if let field = faultline.member("connection") { connection = try field.integer() }
            if let field = faultline.member("role") { role = try field.string() }
            if let field = faultline.member("lineage") { lineage = try field.string() }
            if let field = faultline.member("credentials") {
                credentials = []
                for element in try field.elements() { credentials.append(try element.string()) }
            }
            if let field = faultline.member("duplicateOf") { duplicateOf = try field.integer() }
            if let field = faultline.member("synthetic") {
                guard let flag = field.value.boolValue else {
                    throw field.problem("expected a boolean, found \(field.value.typeName)")
                }
                synthetic = flag
            }
            if let field = faultline.member("deliveredStatus") { deliveredStatus = Int(try field.integer()) }
        }

        private static func request(
            _ field: HARField, method: String, ownFile: Bool, index: Int, notes: inout NoteBook
        ) throws(CaptureLoadError) -> CapturedRequest {
            let urlField = try field.required("url")
            guard let url = RecordedURL(try urlField.string()) else {
                throw urlField.problem("not an absolute http(s) URL")
            }
            let filtered = HARHeaderFilter.filtered(try field.required("headers").nameValuePairs())
            note(filtered, index: index, notes: &notes)
            var headers = filtered.headers
            let body = try requestBody(field.member("postData"), ownFile: ownFile, bodySize: field.member("bodySize"))
            if let body { fixContentLength(&headers, to: body, index: index, notes: &notes) }
            return CapturedRequest(
                method: method, url: url, httpVersion: try httpVersion(field), headers: headers, body: body)
        }

        /// `postData.text` (UTF-8); in faultline's own file a binary body is base64 in
        /// `_faultline.bodyBase64`; a form given as `params` only is encoded back. Nil when empty.
        private static func requestBody(
            _ postData: HARField?, ownFile: Bool, bodySize: HARField?
        ) throws(CaptureLoadError) -> CapturedContent? {
            guard let postData else { return nil }
            var bytes: [UInt8]
            if ownFile, let base64 = postData.member("_faultline")?.member("bodyBase64") {
                guard let decoded = Data(base64Encoded: try base64.string()) else {
                    throw base64.problem("not valid base64")
                }
                bytes = [UInt8](decoded)
            } else if let text = postData.member("text") {
                bytes = Array(try text.string().utf8)
            } else if let params = postData.member("params"),
                (postData.member("mimeType")?.value.stringValue ?? "").lowercased().contains("x-www-form-urlencoded")
            {
                var pairs: [(name: String, value: String)] = []
                for param in try params.elements() {
                    pairs.append((try param.required("name").string(), try param.member("value")?.string() ?? ""))
                }
                bytes = Array(FormURLEncoding.encoded(pairs).utf8)
            } else {
                bytes = []
            }
            guard !bytes.isEmpty else { return nil }
            return CapturedContent(
                bytes: bytes, length: try ownLength(bodySize, ownFile: ownFile) ?? Int64(bytes.count))
        }

        private static func response(
            _ field: HARField, status: Int, ownFile: Bool, index: Int, notes: inout NoteBook
        ) throws(CaptureLoadError) -> (CapturedResponse, bodyMissing: Bool) {
            let filtered = HARHeaderFilter.filtered(try field.required("headers").nameValuePairs())
            note(filtered, index: index, notes: &notes)
            var headers = filtered.headers
            let content = field.member("content")
            var body: CapturedContent?
            var bodyMissing = false
            if let text = content?.member("text") {
                var bytes = Array(try text.string().utf8)
                if let encoding = content?.member("encoding") {
                    guard try encoding.string().lowercased() == "base64" else {
                        throw encoding.problem(
                            "unknown encoding '\(try encoding.string())' (HAR 1.2 writes base64 or none)")
                    }
                    guard let decoded = Data(base64Encoded: try text.string()) else {
                        throw text.problem("not valid base64")
                    }
                    bytes = [UInt8](decoded)
                }
                // content.size may count the compressed bytes (mitmproxy): the text's own length
                // is the body's, unless faultline wrote the file.
                body = CapturedContent(
                    bytes: bytes, length: try ownLength(content?.member("size"), ownFile: ownFile) ?? Int64(bytes.count)
                )
                let stillEncoded = ownFile && content?.member("_faultline")?.member("contentEncoding") != nil
                if !stillEncoded, let coding = headers.first(name: "content-encoding"),
                    coding.lowercased() != "identity"
                {
                    // HAR 1.2: content.text is the decoded body (decompressed, unchunked).
                    headers.remove(name: "content-encoding")
                    notes.add("content.text is the decoded body (HAR 1.2), so Content-Encoding was dropped", index)
                }
                fixContentLength(&headers, to: body!, index: index, notes: &notes)
            } else if let size = try content?.member("size")?.integer(), size > 0 {
                bodyMissing = true
                notes.add("the response body is not in the file (content has no text)", index)
            } else {
                body = CapturedContent(bytes: [])
            }
            // HTTP/2 and HTTP/3 have no reason phrase (RFC 9113 §8.3.2): browsers write "".
            let statusText = try field.member("statusText")?.string() ?? ""
            let reason = statusText.isEmpty ? HTTPReasonPhrase.standard(for: status) : statusText
            return (
                CapturedResponse(
                    status: status, reason: reason, httpVersion: try httpVersion(field), headers: headers, body: body),
                bodyMissing
            )
        }

        /// The body length faultline's own file gives (`bodySize`, `content.size`): the whole length
        /// of a body cut at the capture's limit, and the length on the wire of one whose secrets
        /// became longer or shorter pseudonyms, as the capture recorded it. Nil for other files.
        private static func ownLength(_ field: HARField?, ownFile: Bool) throws(CaptureLoadError) -> Int64? {
            guard ownFile, let length = try field?.integer(), length >= 0 else { return nil }
            return length
        }

        /// `httpVersion`, `HTTP/1.1` when the file leaves it empty (browsers do for cached answers).
        private static func httpVersion(_ field: HARField) throws(CaptureLoadError) -> String {
            let version = try field.member("httpVersion")?.string() ?? ""
            return version.isEmpty ? "HTTP/1.1" : version
        }

        /// A `Content-Length` that disagrees with the body the file holds is set to its length,
        /// so the capture's message is one an HTTP/1.1 peer can read (RFC 9112 §6.3).
        private static func fixContentLength(
            _ headers: inout HTTPHeaders, to body: CapturedContent, index: Int, notes: inout NoteBook
        ) {
            guard let declared = headers.first(name: "content-length"), Int64(declared) != body.length, !body.truncated
            else { return }
            headers.replaceOrAdd(name: "Content-Length", value: String(body.length))
            notes.add("Content-Length set to the length of the body in the file", index)
        }

        private static func note(_ filtered: HARHeaderFilter.Filtered, index: Int, notes: inout NoteBook) {
            if !filtered.droppedPseudoHeaders.isEmpty {
                notes.add("HTTP/2 pseudo-header fields dropped (:authority became Host)", index)
            }
            if !filtered.droppedHopByHop.isEmpty {
                let names = Set(filtered.droppedHopByHop.map { $0.lowercased() }).sorted().joined(separator: ", ")
                notes.add("hop-by-hop fields dropped (\(names); RFC 9110 §7.6.1)", index)
            }
        }
    }

    /// The notes of an import, one line per kind naming the entries it concerns.
    struct NoteBook {
        let source: String
        private var entries: [(message: String, indexes: [Int])] = []

        init(source: String) {
            self.source = source
        }

        mutating func add(_ message: String, _ index: Int) {
            if let position = entries.firstIndex(where: { $0.message == message }) {
                // An entry's request and response may each earn the same note: it is named once.
                if entries[position].indexes.last != index { entries[position].indexes.append(index) }
            } else {
                entries.append((message, [index]))
            }
        }

        /// `FILE: entries[0], entries[3]: message`, at most five entries named.
        var lines: [String] {
            entries.map { message, indexes in
                var named = indexes.prefix(5).map { "entries[\($0)]" }.joined(separator: ", ")
                if indexes.count > 5 { named += " and \(indexes.count - 5) more" }
                return "\(source): \(named): \(message)"
            }
        }
    }
}
