import FaultlineCore
import FaultlineHTTP1

/// The web UI under `/ui/`: the login that trades a one-time ticket for a session cookie, the
/// embedded page and assets, and the API again under `/ui/api/` for pages holding that cookie.
///
/// The bearer token never reaches the browser. A session cookie authorises `/ui/` only (its
/// `Path`), and every state-changing call under `/ui/api/` must also carry the page's own
/// `Origin`: `SameSite=Strict` keeps other sites' requests from carrying the cookie, and the
/// `Origin` check refuses whatever still gets through (a same-site page on another port of the
/// same host, for which cookies make no difference: RFC 6265 §8.5).
extension ControlAPI {
    /// `POST /v1/ui/tickets`: a one-time ticket for `GET /ui/login?ticket=…`, valid for
    /// `UISessions.ticketLifetime`: `{ticket, path, expires_in_s}`.
    func issueUITicket() throws(ControlFailure) -> ControlReply {
        let ticket: String
        do throws(ServerError) {
            ticket = try uiSessions.issueTicket()
        } catch {
            throw ControlFailure(500, error.description)
        }
        return .ok(
            ControlJSON.object([
                "ticket": .string(ticket),
                "path": .string("/ui/login?ticket=" + ticket),
                "expires_in_s": ControlJSON.number(UInt64(UISessions.ticketLifetime.components.seconds)),
            ]))
    }

    /// Answers a call under `/ui/`.
    func handleUI(_ request: ControlRequest) -> ControlReply {
        let rest = Array(request.path.dropFirst())
        let cookieName = ControlGate.sessionCookieName(host: request.headers.first(name: "host"))
        if rest == ["login"] { return login(request, cookieName: cookieName) }
        guard let session = ControlGate.cookie(cookieName, in: request.headers), uiSessions.isSession(session) else {
            if rest.first == "api" {
                return .json(
                    status: 401, ControlJSON.error("no UI session: open the address that 'faultline ui' prints"))
            }
            return UIPages.message(
                status: 401, title: "Sign in with faultline ui",
                text: "This page needs a session. Run 'faultline ui' and open the address it prints.")
        }
        if rest.first == "api" {
            if request.method != "GET" && request.method != "HEAD" && !ControlGate.isSameOrigin(request.headers) {
                return ControlFailure(
                    403, "refused: a UI call that changes something must come from the UI's own page (its Origin)"
                ).reply
            }
            let path = Array(rest.dropFirst())
            if path == ["v1", "events"], request.method == "GET" { return .uiEvents }
            return route(request, path: path)
        }
        guard request.method == "GET" else {
            return .methodNotAllowed(request, allowed: ["GET"])
        }
        guard let asset = UIAssets.named(rest.first ?? "index.html"), rest.count <= 1 else {
            return UIPages.message(status: 404, title: "Not found", text: "There is no \(request.rawPath) here.")
        }
        return .document(
            status: 200, contentType: asset.contentType, body: asset.bytes, headers: UIPages.securityHeaders)
    }

    /// `GET /ui/login?ticket=…`: spends the ticket and answers 303 to `/ui/` with the session
    /// cookie; 403 for a ticket that is unknown, spent or expired.
    private func login(_ request: ControlRequest, cookieName: String) -> ControlReply {
        guard request.method == "GET" else {
            return .methodNotAllowed(request, allowed: ["GET"])
        }
        let session = request.query["ticket"].flatMap { ticket in (try? uiSessions.redeem(ticket)) ?? nil }
        guard let session else {
            return UIPages.message(
                status: 403, title: "This address was used already",
                text: "A UI address works once and for a few minutes. Run 'faultline ui' for a new one.")
        }
        var headers = UIPages.securityHeaders
        headers.add(name: "Location", value: "/ui/")
        headers.add(name: "Set-Cookie", value: "\(cookieName)=\(session); Path=/ui; HttpOnly; SameSite=Strict")
        return .document(
            status: 303, contentType: "text/plain; charset=utf-8", body: Array("See /ui/\n".utf8), headers: headers)
    }
}
