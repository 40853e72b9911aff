import Foundation
import HTTPTypes
import Hummingbird
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVESAML
import TVETokens

extension ServiceProvider {
    /// How long a browser login or a platform-SSO profile request may take.
    static let loginLifetime: Int64 = 600_000

    func authenticationRoutes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        // The MVPD list a login picks from.
        api(router, .get, "api/v1/config/:requestor") { call in
            let requestor = try call.pathRequestor()
            try call.requireClient(requestor: requestor.id)
            return Response.json(
                .ok,
                PassAPI.ConfigurationResponse(
                    mvpds: (self.configuration.mvpds(for: requestor.id) ?? []).filter { $0.isTempPass != true }.map(\.contractEntry)))
        }
        // The browser starts here (no client credential: it is a page, possibly on a second screen).
        api(router, .get, "api/v1/authenticate") { call in try self.authenticate(call) }
        router.post("sp/saml/SAMLAssertionConsumer") { request, _ -> Response in
            let body = try? await request.body.collect(upTo: Self.maximumBodyBytes)
            // Counted before anything is decoded, as every form of the provider is (no credential is needed here).
            guard let fields = APICall.boundedForm(body.map { String(decoding: $0.readableBytesView, as: UTF8.self) } ?? "") else {
                return HTMLPage.page(
                    .badRequest, title: "Sign-in failed", body: "<p>The form carries more than \(APICall.maximumFields) fields.</p>")
            }
            return self.consumeAssertion(fields)
        }
        api(router, .get, "api/v1/checkauthn") { call in
            let requestor = try call.requestor()
            let client = try call.requireClient(requestor: requestor.id)
            guard case .live = self.session(requestor.id, client, try call.deviceID()) else { throw ServiceProviderError.notAuthenticated }
            return Response(status: .ok)
        }
        api(router, .get, "api/v1/checkauthn/:code") { call in
            // The client first, so that the endpoint is no oracle of live codes.
            let requestor = try call.requestor()
            let client = try call.requireClient(requestor: requestor.id)
            guard let record = self.codes.record(call.path.get("code") ?? "", client: client), record.requestor == requestor.id else {
                throw ServiceProviderError.registrationCodeNotFound
            }
            guard case .live = self.session(record.requestor, client, record.info.deviceID) else {
                throw ServiceProviderError.notAuthenticated
            }
            return Response(status: .ok)
        }
        api(router, .get, "api/v1/tokens/authn") { call in
            let requestor = try call.requestor()
            let client = try call.requireClient(requestor: requestor.id)
            switch self.session(requestor.id, client, try call.deviceID()) {
            case .missing: throw ServiceProviderError.authenticationNotFound
            case .expired: throw ServiceProviderError.authenticationExpired
            case .live(let session, let expires):
                return Response.json(
                    .ok,
                    PassAPI.AuthenticationTokenResponse(
                        requestor: requestor.id, mvpd: session.mvpd, userID: session.userID,
                        expires: .init(milliseconds: expires)))
            }
        }
        api(router, .post, "api/v1/tokens/authn") { call in try self.exchangeToken(call) }
        api(router, .get, "api/v1/:requestor/profile-requests/:mvpd") { call in
            let requestor = try call.pathRequestor()
            let client = try call.requireClient(requestor: requestor.id)
            let mvpd = try self.platformMVPD(call.path.get("mvpd") ?? "", requestor: requestor.id)
            let deviceID = try call.deviceID()
            let requestID = "_" + ClientRegistry.randomToken()
            let now = self.clock.nowMilliseconds
            try self.attempts.consume(.deviceState, client, now: now)
            let stored = self.state.profileRequests.withLock {
                $0.insert(
                    ServiceProviderState.deviceKey(requestor.id, client, deviceID) + mvpd.id, requestID, expires: now + Self.loginLifetime,
                    now: now
                )
            }
            guard stored else { throw ServiceProviderError.busy }
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: requestID)))
        }
        // The browser side of a logout (the page an app opens after DELETE /api/v1/logout): the MVPD's session is
        // local here, so it only returns to the app. It changes no state: it carries no credential.
        api(router, .get, "api/v1/logout") { call in
            let requestor = try call.requestor()
            if let url = call.field("redirect_url") {
                guard requestor.allowsRedirect(to: url) else {
                    throw ServiceProviderError(
                        status: 403, code: "invalid_parameter", message: "Redirect URL not allowed",
                        details: "redirect_url is neither a registered redirect URL of the requestor nor a page on its domains",
                        action: .configuration)
                }
                return Response(status: .found, headers: [.location: url, .cacheControl: "no-store"])
            }
            return HTMLPage.page(.ok, title: "Signed out", body: "<p>You are signed out.</p>")
        }
        api(router, .delete, "api/v1/logout") { call in
            let requestor = try call.requestor()
            let client = try call.requireClient(requestor: requestor.id)
            self.state.logout(requestor: requestor.id, client: client, deviceID: try call.deviceID())
            return Response(status: .noContent)
        }
        return router
    }

    func session(_ requestor: String, _ client: String, _ deviceID: String) -> ExpiringTable<AuthenticationSession>.Lookup {
        let now = clock.nowMilliseconds
        return state.identity.withLock { $0.sessions.lookup(ServiceProviderState.deviceKey(requestor, client, deviceID), now: now) }
    }

    /// `GET /api/v1/authenticate?requestor_id&mso_id&reg_code&redirect_url?` → 302 to the MVPD's login page.
    ///
    /// The browser carries no client credential, so the device and its client come from a registration code that the
    /// app created with its credential (Adobe's REST v1 flow), unused and live until the login completes. A `deviceId`
    /// instead of a code is accepted only with a client credential (for tools), and the login then counts for that
    /// client's state of the device only: device state is keyed by client (``APICall/requireClient(requestor:)``), so no
    /// client can sign another client's device into a subscription. `redirect_url` must be one of the requestor's
    /// ``ServiceProviderConfiguration/Requestor/redirectURLs``.
    private func authenticate(_ call: APICall) throws -> Response {
        let requestor = try call.requestor()
        let mvpdID = try call.required("mso_id", limit: 256)
        guard let mvpd = configuration.mvpd(mvpdID, for: requestor.id) else { throw ServiceProviderError.unknownMVPD }
        let deviceID: String
        let client: String
        var code: String? = nil
        if let regCode = call.field("reg_code") {
            // Guessing codes stops at the attempt limit of the address.
            let now = clock.nowMilliseconds
            try attempts.check(.code, call.address, now: now)
            guard let (record, owner) = codes.loginRecord(regCode, requestor: requestor.id) else {
                attempts.fail(.code, call.address, now: now)
                throw ServiceProviderError.registrationCodeNotFound
            }
            client = owner
            if let bound = record.mvpd, bound != mvpd.id { throw ServiceProviderError.unknownMVPD }
            deviceID = record.info.deviceID
            code = regCode
        } else {
            client = try call.requireClient(requestor: requestor.id)
            deviceID = try call.deviceID()
        }
        var redirect: String? = nil
        if let url = call.field("redirect_url") {
            guard requestor.allowsRedirect(to: url) else {
                throw ServiceProviderError(
                    status: 403, code: "invalid_parameter", message: "Redirect URL not allowed",
                    details: "redirect_url is neither a registered redirect URL of the requestor nor a page on its domains",
                    action: .configuration)
            }
            redirect = url
        }
        let relay = ClientRegistry.randomToken()
        let requestID = "_" + ClientRegistry.randomToken()
        let now = clock.nowMilliseconds
        // One code (or one client's tool logins) starts a handful of logins, not a table's worth.
        try attempts.consume(.login, code.map { "v1-code:" + $0 } ?? ("v1-client:" + client), now: now)
        let login = PendingLogin(
            requestor: requestor.id, client: client, mvpd: mvpd.id, deviceID: deviceID, registrationCode: code, redirectURL: redirect,
            requestID: requestID)
        guard state.logins.withLock({ $0.insert(relay, login, expires: now + Self.loginLifetime, now: now) }) else {
            throw ServiceProviderError.busy
        }
        let location = "/idp/\(FormCodec.percentEncode(mvpd.id))/login?request_id=\(requestID)&RelayState=\(relay)"
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// `POST /sp/saml/SAMLAssertionConsumer`: verifies the IdP's response for the pending login named by `RelayState`
    /// (single use), records the authentication, and redirects to the app.
    private func consumeAssertion(_ fields: [(name: String, value: String)]) -> Response {
        let now = clock.nowMilliseconds
        guard let relay = fields.first(where: { $0.name == "RelayState" })?.value,
            let login = state.logins.withLock({ $0.take(relay, now: now) })
        else {
            return HTMLPage.page(
                .badRequest, title: "Sign-in failed", body: "<p>This sign-in is unknown or has expired; start again from the app.</p>")
        }
        guard let samlResponse = fields.first(where: { $0.name == "SAMLResponse" })?.value else {
            return HTMLPage.page(.badRequest, title: "Sign-in failed", body: "<p>The identity provider sent no response.</p>")
        }
        do {
            if let code = login.v2Code {
                return try completeV2Login(code: code, samlResponse: samlResponse, login: login)
            }
            try establishSession(
                samlResponse: samlResponse, requestor: login.requestor, client: login.client, mvpdID: login.mvpd,
                deviceID: login.deviceID, requestID: login.requestID, platformSSO: false, registrationCode: login.registrationCode)
        } catch {
            return HTMLPage.page(.forbidden, title: "Sign-in failed", body: "<p>\(HTMLForm.escape(error.details ?? error.message))</p>")
        }
        if let redirect = login.redirectURL {
            return Response(status: .found, headers: [.location: redirect, .cacheControl: "no-store"])
        }
        return HTMLPage.page(.ok, title: "Signed in", body: "<p>You are signed in. You can return to your device.</p>")
    }

    /// Verifies a SAML response with TVESAML (the same strict policy as `tvekit saml verify`), refuses a replayed
    /// assertion, and records the device's authentication.
    func establishSession(
        samlResponse: String, requestor: String, client: String, mvpdID: String, deviceID: String, requestID: String,
        platformSSO: Bool, registrationCode: String? = nil
    ) throws(ServiceProviderError) {
        let (mvpd, assertion) = try verifiedAssertion(samlResponse, requestor: requestor, mvpdID: mvpdID, requestID: requestID)
        let now = clock.nowMilliseconds
        if let registrationCode, !codes.consume(registrationCode, requestor: requestor, deviceID: deviceID) {
            throw ServiceProviderError(
                status: 403, code: "authentication_session_invalidated", message: "Authentication failed",
                details: "the registration code expired, was deleted or was already used", action: .authentication)
        }
        let session = AuthenticationSession(
            mvpd: mvpd.id, userID: assertion.nameID, sessionGUID: UUID().uuidString.lowercased(),
            platformSSO: platformSSO, created: now)
        let key = ServiceProviderState.deviceKey(requestor, client, deviceID)
        // A new session GUID: the device's earlier authorizations, which name the old one, are void.
        let expires = authenticationExpiry(assertion, now: now)
        guard state.identity.withLock({ $0.sessions.insert(key, session, expires: expires, now: now) }) else { throw .busy }
    }

    /// When an authentication from `assertion` ends: the configured lifetime, or the IdP's session end when sooner.
    func authenticationExpiry(_ assertion: SSOAssertion, now: Int64) -> Int64 {
        var expires = now + configuration.authenticationTTL * 1000
        if let end = assertion.sessionNotOnOrAfter { expires = min(expires, Self.milliseconds(end)) }
        return expires
    }

    /// The MVPD and the assertion of a SAML response that TVESAML accepts for `requestID`, its assertion ID recorded so
    /// that it is never accepted twice.
    func verifiedAssertion(_ samlResponse: String, requestor: String, mvpdID: String, requestID: String)
        throws(ServiceProviderError) -> (ServiceProviderConfiguration.MVPD, SSOAssertion)
    {
        guard let mvpd = configuration.mvpd(mvpdID, for: requestor) else { throw .unknownMVPD }
        let clock = self.clock
        let assertion: SSOAssertion
        do {
            let verifier = try SAMLResponseVerifier(
                configuration: SAMLVerifierConfiguration(
                    idpKeys: [keys.identityProviderSigningKey.publicKey], idpEntityID: mvpd.idpEntityID,
                    spEntityID: configuration.spEntityID,
                    acsURL: configuration.acsURL, requestID: requestID,
                    clock: { Date(timeIntervalSince1970: Double(clock.nowMilliseconds) / 1000) }))
            assertion = try verifier.verify(Array(samlResponse.utf8))
        } catch let error as SAMLError {
            throw ServiceProviderError(
                status: 403, code: "invalid_parameter_saml_response", message: "Authentication failed",
                details: "the SAML response was rejected: \(error.failures.map(\.rule.description).joined(separator: ", "))",
                action: .authentication)
        } catch {
            throw ServiceProviderError(
                status: 403, code: "invalid_parameter_saml_response", message: "Authentication failed",
                details: "the SAML response was rejected", action: .authentication)
        }
        let now = clock.nowMilliseconds
        // Remember the assertion for at least as long as any response could still be accepted.
        let assertionExpiry = max(assertion.notOnOrAfter.map { Self.milliseconds($0) } ?? now, now + Self.loginLifetime)
        switch ServiceProviderState.firstUse(
            mvpd.idpEntityID + "\u{0}" + assertion.assertionID, in: state.assertionIDs,
            expires: assertionExpiry, now: now)
        {
        case .first: return (mvpd, assertion)
        case .replayed:
            throw ServiceProviderError(
                status: 403, code: "invalid_parameter_saml_response", message: "Authentication failed",
                details: "the SAML assertion was already used", action: .authentication)
        case .full: throw .busy
        }
    }

    /// Milliseconds since the epoch, clamped to the range of `Int64`.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        return Int64(exactly: value) ?? (value > 0 ? .max : .min)
    }

    /// `POST /api/v1/tokens/authn`: the platform-SSO token exchange (`requestor, deviceId, mvpd, deviceType,
    /// SAMLResponse`). The response must answer the device's outstanding profile request for that MVPD.
    private func exchangeToken(_ call: APICall) throws -> Response {
        let requestor = try call.requestor()
        let client = try call.requireClient(requestor: requestor.id)
        let deviceID = try call.deviceID()
        let mvpd = try platformMVPD(try call.required("mvpd", limit: 256), requestor: requestor.id)
        let samlResponse = try call.required(
            "SAMLResponse", limit: Self.maximumBodyBytes,
            error: .badRequest("invalid_parameter_saml_response", "SAMLResponse is required"))
        let now = clock.nowMilliseconds
        guard
            let requestID = state.profileRequests.withLock({
                $0.take(ServiceProviderState.deviceKey(requestor.id, client, deviceID) + mvpd.id, now: now)
            })
        else {
            throw ServiceProviderError(
                status: 403, code: "invalid_parameter_saml_response", message: "Authentication failed",
                details: "no profile request is outstanding for this device and MVPD", action: .authentication)
        }
        try establishSession(
            samlResponse: samlResponse, requestor: requestor.id, client: client, mvpdID: mvpd.id, deviceID: deviceID,
            requestID: requestID, platformSSO: true)
        return Response(status: .noContent)
    }

    /// An MVPD of `requestor` boarded for platform single sign-on.
    func platformMVPD(_ id: String, requestor: String) throws(ServiceProviderError) -> ServiceProviderConfiguration.MVPD {
        guard let mvpd = configuration.mvpd(id, for: requestor) else { throw .unknownMVPD }
        guard mvpd.enablePlatformServices == true else {
            throw ServiceProviderError(
                status: 400, code: "unknown_integration", message: "Platform SSO not enabled",
                details: "this MVPD is not boarded for platform single sign-on", action: .configuration)
        }
        return mvpd
    }
}
