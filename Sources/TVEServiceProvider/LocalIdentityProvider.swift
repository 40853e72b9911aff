import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVEMetadata
import TVESAML
import TVETokens
import TVEPassAPI

/// The local MVPD identity providers: one per configured MVPD, entity ID ``ServiceProviderConfiguration/MVPD/idpEntityID``,
/// signing with one key that the service provider pins.
///
/// - `GET /idp/{mvpd}/login?request_id=…&RelayState=…` — an HTML login form (the page `GET /api/v1/authenticate`
///   redirects to).
/// - `POST /idp/{mvpd}/login` — checks the configured user's password; on success answers an HTML form that posts a
///   signed SAML Response (`SAMLResponse`, Base64) and the `RelayState` to the service provider's assertion consumer.
/// - `POST /idp/{mvpd}/sso` (`username`, `password`, `request_id`) — answers `{"SAMLResponse": …}`: what a platform
///   single-sign-on framework (Apple's Video Subscriber Account) hands the app for the token exchange.
///
/// **Choice:** the service provider passes its request ID and relay state as plain query parameters instead of a
/// SAML `AuthnRequest` (HTTP-Redirect binding); the response is a full SAML 2.0 Web SSO Response, signed at the root.
public struct LocalIdentityProvider: Sendable {
    let configuration: ServiceProviderConfiguration
    let signer: SAMLSigner
    let clock: any MediaTokenClock
    /// Wrong passwords are limited per account and per address.
    let attempts: AttemptLimiter
    /// How long a response is valid.
    static let responseLifetime: Duration = .seconds(300)

    init(configuration: ServiceProviderConfiguration, signingKey: RSAPrivateKey, clock: any MediaTokenClock, attempts: AttemptLimiter) {
        self.configuration = configuration
        signer = SAMLSigner(privateKey: signingKey)
        self.clock = clock
        self.attempts = attempts
    }

    /// The user whose password this is, within the attempt limits: a wrong password counts against the account and
    /// the address; an account or address over its limit is refused (even with the right password) until its window
    /// ends, so that guessing stops at the limit.
    func limitedAuthenticate(mvpdID: String, username: String, password: String, address: String)
        throws(ServiceProviderError) -> ServiceProviderConfiguration.User?
    {
        let now = clock.nowMilliseconds
        let account = mvpdID + "\u{0}" + username
        try attempts.check(.password, account, now: now)
        try attempts.check(.passwordAddress, address, now: now)
        guard let user = authenticate(mvpdID: mvpdID, username: username, password: password) else {
            attempts.fail(.password, account, now: now)
            attempts.fail(.passwordAddress, address, now: now)
            return nil
        }
        attempts.reset(.password, account)
        return user
    }

    /// The subscriber `username` of `mvpdID` when `password` is theirs. Passwords are compared as SHA-256 digests in
    /// constant time, and every user is compared.
    func authenticate(mvpdID: String, username: String, password: String) -> ServiceProviderConfiguration.User? {
        guard let mvpd = configuration.mvpds.first(where: { $0.id == mvpdID }),
            let given = try? HashFunction.sha256.hash(Array(password.utf8))
        else { return nil }
        var match: ServiceProviderConfiguration.User?
        for user in mvpd.users {
            let expected = (try? HashFunction.sha256.hash(Array(user.password.utf8))) ?? []
            if ConstantTime.equals(expected, given), user.username == username { match = user }
        }
        return match
    }

    /// The NameID the IdP asserts for a user: the `userID` metadata when configured, else the username.
    static func nameID(of user: ServiceProviderConfiguration.User) -> String {
        if let text = user.metadata["userID"], case .string(let id)? = JSONValue(jsonText: Array(text.utf8)) { return id }
        return user.username
    }

    /// A signed SAML Response (Base64) for `user`, answering `requestID`, addressed to the service provider's ACS.
    /// The attributes are the MVPD's `requiredMetadataFields` the user has (as JSON text).
    public func signedResponse(mvpdID: String, user: ServiceProviderConfiguration.User, inResponseTo requestID: String?) throws -> String {
        guard let mvpd = configuration.mvpds.first(where: { $0.id == mvpdID }) else { throw ServiceProviderError.unknownMVPD }
        let attributes = (mvpd.requiredMetadataFields ?? []).compactMap { name in
            user.metadata[name].map { SSOAttribute(name: name, values: [$0]) }
        }
        let now = Date(timeIntervalSince1970: Double(clock.nowMilliseconds) / 1000)
        let builder = SAMLResponseBuilder(
            issuer: mvpd.idpEntityID, destination: configuration.acsURL, audience: configuration.spEntityID,
            inResponseTo: requestID, nameID: Self.nameID(of: user), issueInstant: now,
            lifetime: Self.responseLifetime, attributes: attributes)
        return Base64.encode(try signer.sign(Array(builder.xml().utf8), targets: .root))
    }

    func routes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        router.get("idp/:mvpd/login") { request, context -> Response in
            let fields = APICall.boundedForm(request.uri.query ?? "") ?? []
            guard let mvpd = self.mvpd(context.parameters.get("mvpd")),
                let requestID = Self.token(fields, "request_id"), let relay = Self.token(fields, "RelayState")
            else {
                return HTMLPage.page(.badRequest, title: "Bad request", body: "<p>This login link is not valid.</p>")
            }
            return self.loginForm(mvpd, requestID: requestID, relay: relay, failed: false)
        }
        router.post("idp/:mvpd/login") { request, context -> Response in
            let body = try? await request.body.collect(upTo: 64 * 1024)
            let fields = APICall.boundedForm(body.map { String(decoding: $0.readableBytesView, as: UTF8.self) } ?? "") ?? []
            guard let mvpd = self.mvpd(context.parameters.get("mvpd")),
                let requestID = Self.token(fields, "request_id"), let relay = Self.token(fields, "RelayState")
            else {
                return HTMLPage.page(.badRequest, title: "Bad request", body: "<p>This login form is not valid.</p>")
            }
            let username = fields.first { $0.name == "username" }?.value ?? ""
            let password = fields.first { $0.name == "password" }?.value ?? ""
            let user: ServiceProviderConfiguration.User?
            do {
                user = try self.limitedAuthenticate(
                    mvpdID: mvpd.id, username: username, password: password, address: ClientAddress.of(context))
            } catch {
                return HTMLPage.page(
                    .tooManyRequests, title: "\(mvpd.displayName): try again later",
                    body: "<p>Too many failed sign-in attempts. Wait a few minutes and try again.</p>")
            }
            guard let user else {
                return self.loginForm(mvpd, requestID: requestID, relay: relay, failed: true)
            }
            guard let response = try? self.signedResponse(mvpdID: mvpd.id, user: user, inResponseTo: requestID) else {
                return HTMLPage.page(
                    .internalServerError, title: "Error", body: "<p>The identity provider could not sign the response.</p>")
            }
            return HTMLPage.page(
                .ok, title: "\(mvpd.displayName): signing in",
                body: """
                    \(HTMLForm.render(
                        action: "/sp/saml/SAMLAssertionConsumer",
                        hiddenFields: [.init(name: "SAMLResponse", value: response), .init(name: "RelayState", value: relay)]))\
                    <noscript><button type="submit">Continue</button></noscript>
                    </form>
                    <script>\(HTMLPage.autoSubmitScript)</script>
                    """)
        }
        router.get("idp/:mvpd/logout") { request, context -> Response in
            guard let mvpd = self.mvpd(context.parameters.get("mvpd")) else {
                return HTMLPage.page(.badRequest, title: "Bad request", body: "<p>This sign-out link is not valid.</p>")
            }
            let redirect = APICall.boundedForm(request.uri.query ?? "")?.first { $0.name == "redirectUrl" }?.value
            return self.logoutPage(mvpd, redirectURL: redirect)
        }
        router.post("idp/:mvpd/sso") { request, context -> Response in
            let body = try? await request.body.collect(upTo: 64 * 1024)
            let fields = APICall.boundedForm(body.map { String(decoding: $0.readableBytesView, as: UTF8.self) } ?? "") ?? []
            guard let mvpd = self.mvpd(context.parameters.get("mvpd")), let requestID = Self.token(fields, "request_id") else {
                return ServiceProviderError.badRequest("invalid_parameter", "an MVPD of this IdP and request_id are required").response(
                    enhanced: false)
            }
            let username = fields.first { $0.name == "username" }?.value ?? ""
            let password = fields.first { $0.name == "password" }?.value ?? ""
            let user: ServiceProviderConfiguration.User?
            do {
                user = try self.limitedAuthenticate(
                    mvpdID: mvpd.id, username: username, password: password, address: ClientAddress.of(context))
            } catch {
                return ServiceProviderError.tooManyAttempts.response(enhanced: false)
            }
            guard let user else {
                return ServiceProviderError(
                    status: 401, code: "invalid_credentials", message: "Unauthorized",
                    details: "wrong username or password", action: .authentication
                ).response(enhanced: false)
            }
            guard let response = try? self.signedResponse(mvpdID: mvpd.id, user: user, inResponseTo: requestID) else {
                return ServiceProviderError.internalError.response(enhanced: false)
            }
            return Response.json(.ok, PassAPI.SingleSignOnResponse(samlResponse: response))
        }
        return router
    }

    /// `GET /idp/{mvpd}/logout?redirectUrl=`: the MVPD's sign-out page of a v2 `logout` action. Its session is local
    /// here, so it only returns to `redirectUrl` when a requestor registered that URL (never an open redirect), or
    /// says the viewer is signed out.
    func logoutPage(_ mvpd: ServiceProviderConfiguration.MVPD, redirectURL: String?) -> Response {
        // Only the requestors this MVPD serves may send its viewers back to their pages.
        if let redirectURL, configuration.requestors.contains(where: { $0.mvpds.contains(mvpd.id) && $0.allowsRedirect(to: redirectURL) }) {
            return Response(status: .found, headers: [.location: redirectURL, .cacheControl: "no-store"])
        }
        return HTMLPage.page(
            .ok, title: "\(mvpd.displayName): signed out", body: "<p>You are signed out of \(HTMLForm.escape(mvpd.displayName)).</p>")
    }

    private func mvpd(_ id: String?) -> ServiceProviderConfiguration.MVPD? {
        configuration.mvpds.first { $0.id == id }
    }

    /// A request ID or relay state: 1 to 128 URL-safe characters.
    static func token(_ fields: [(name: String, value: String)], _ name: String) -> String? {
        guard let value = fields.first(where: { $0.name == name })?.value, (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({
                $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || "-_.".utf8.contains($0))
            })
        else { return nil }
        return value
    }

    private func loginForm(_ mvpd: ServiceProviderConfiguration.MVPD, requestID: String, relay: String, failed: Bool) -> Response {
        HTMLPage.page(
            failed ? .unauthorized : .ok, title: "\(mvpd.displayName): sign in",
            body: """
                <h1>\(HTMLForm.escape(mvpd.displayName))</h1>
                \(failed ? "<p class=\"error\">Wrong username or password.</p>" : "")
                \(HTMLForm.render(
                    action: "/idp/\(FormCodec.percentEncode(mvpd.id))/login",
                    hiddenFields: [.init(name: "request_id", value: requestID), .init(name: "RelayState", value: relay)]))\
                <label>Username <input name="username" autocomplete="username"></label>
                <label>Password <input name="password" type="password" autocomplete="current-password"></label>
                <button type="submit">Sign in</button>
                </form>
                """)
    }
}
