import Foundation
import HTTPTypes
import Hummingbird
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVETokens

/// The second-screen page of REST API v2 (what a programmer's activation site does): the viewer types the code the
/// TV shows, picks a TV provider when the TV's session did not name one, and continues to the `authenticate` chain.
/// Plain HTML forms, no script: it works without JavaScript.
///
/// - `GET /activate/{serviceProvider}` — the code form; `GET /activate/{serviceProvider}?code=…` — the next step;
/// - `POST /activate/{serviceProvider}` (`code`, `mvpd`) — resumes the session with the chosen MVPD;
/// - `GET /activate/{serviceProvider}/done` — where a session created with that path as `redirectUrl` ends.
///
/// Unknown codes count against the address's attempt limit, as `authenticate` does.
extension ServiceProvider {
    /// The page a second-screen login may return to: always an allowed `redirectUrl` (it is this server's).
    public static func activationDonePath(_ requestor: String) -> String { "/activate/\(FormCodec.percentEncode(requestor))/done" }

    func activationRoutes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        router.get("activate/:serviceProvider") { request, context -> Response in
            guard let requestor = context.parameters.get("serviceProvider").flatMap({ self.configuration.requestor($0) }) else {
                return HTMLPage.page(.notFound, title: "Not found", body: "<p>There is no such service.</p>")
            }
            let code = APICall.boundedForm(request.uri.query ?? "")?.first { $0.name == "code" }?.value
            guard let code else { return self.codeForm(requestor, failed: false) }
            return self.activate(requestor, code: code, mvpd: nil, address: ClientAddress.of(context))
        }
        router.post("activate/:serviceProvider") { request, context -> Response in
            guard let requestor = context.parameters.get("serviceProvider").flatMap({ self.configuration.requestor($0) }) else {
                return HTMLPage.page(.notFound, title: "Not found", body: "<p>There is no such service.</p>")
            }
            let body = try? await request.body.collect(upTo: 4096)
            let fields = APICall.boundedForm(body.map { String(decoding: $0.readableBytesView, as: UTF8.self) } ?? "") ?? []
            let code = fields.first { $0.name == "code" }?.value ?? ""
            let mvpd = fields.first { $0.name == "mvpd" }?.value
            return self.activate(requestor, code: code, mvpd: mvpd, address: ClientAddress.of(context))
        }
        router.get("activate/:serviceProvider/done") { _, _ -> Response in
            HTMLPage.page(.ok, title: "Signed in", body: "<h1>You are signed in</h1>\n<p>Return to your TV: it signs in by itself.</p>")
        }
        return router
    }

    /// The step after a code: pick the provider, or continue to the login.
    private func activate(_ requestor: ServiceProviderConfiguration.Requestor, code rawCode: String, mvpd: String?, address: String)
        -> Response
    {
        let code = rawCode.trimmingCharacters(in: .whitespaces).uppercased()
        let now = clock.nowMilliseconds
        guard attempts.allows(.code, address, now: now) else {
            return HTMLPage.page(
                .tooManyRequests, title: "Try again later", body: "<p>Too many wrong codes. Wait a few minutes and try again.</p>")
        }
        guard code.utf8.count <= 16, case .live(var session, _) = v2.sessions.withLock({ $0.lookup(code, now: now) }),
            session.requestor == requestor.id, session.profile == nil
        else {
            attempts.fail(.code, address, now: now)
            return codeForm(requestor, failed: true)
        }
        if let mvpd, session.mvpd == nil {
            guard configuration.mvpd(mvpd, for: requestor.id).map({ $0.isTempPass != true }) ?? false else {
                return providerForm(requestor, code: code)
            }
            session.mvpd = mvpd
            let updated = session
            guard v2.sessions.withLock({ $0.insert(code, updated, expires: updated.notAfter, now: now) }) else {
                return HTMLPage.page(.serviceUnavailable, title: "Busy", body: "<p>The service is busy; try again.</p>")
            }
        }
        guard session.mvpd != nil else { return providerForm(requestor, code: code) }
        guard session.missingParameters.isEmpty else {
            return HTMLPage.page(
                .badRequest, title: "Start again on your TV", body: "<p>Your TV's sign-in is incomplete. Start again from the TV.</p>")
        }
        let location = "\(PassAPIv2.pathPrefix)/authenticate/\(FormCodec.percentEncode(requestor.id))/\(code)"
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    private func codeForm(_ requestor: ServiceProviderConfiguration.Requestor, failed: Bool) -> Response {
        HTMLPage.page(
            failed ? .badRequest : .ok, title: "Activate your TV",
            body: """
                <h1>Activate your TV</h1>
                \(failed ? "<p class=\"error\">That code is not valid. Check the code on your TV and try again.</p>" : "")
                <form method="get" action="/activate/\(HTMLForm.escape(FormCodec.percentEncode(requestor.id)))">
                <label>Code <input name="code" autocomplete="off" autocapitalize="characters" maxlength="16" required></label>
                <button type="submit">Continue</button>
                </form>
                """)
    }

    private func providerForm(_ requestor: ServiceProviderConfiguration.Requestor, code: String) -> Response {
        let choices = (configuration.mvpds(for: requestor.id) ?? []).filter { $0.isTempPass != true }.map { mvpd in
            "<label><input type=\"radio\" name=\"mvpd\" value=\"\(HTMLForm.escape(mvpd.id))\" required> \(HTMLForm.escape(mvpd.displayName))</label><br>"
        }
        return HTMLPage.page(
            .ok, title: "Choose your TV provider",
            body: """
                <h1>Choose your TV provider</h1>
                \(HTMLForm.render(
                    action: "/activate/\(FormCodec.percentEncode(requestor.id))", hiddenFields: [.init(name: "code", value: code)]))\
                \(choices.joined(separator: "\n"))
                <button type="submit">Continue</button>
                </form>
                """)
    }
}
