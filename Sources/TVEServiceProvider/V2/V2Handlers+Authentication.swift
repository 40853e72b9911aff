import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    /// `GET /api/v2/authenticate/{serviceProvider}/{code}` (a browser, no access token): a complete, unused session's
    /// login starts at its MVPD's login page. The login is bound to the session's client and device: the profile it
    /// makes is theirs, whoever's browser completes it.
    func startAuthenticationUsingGET(_ input: Operations.StartAuthenticationUsingGET.Input) async throws
        -> Operations.StartAuthenticationUsingGET.Output
    {
        let caller = try V2Caller.get()
        let now = self.now
        // liveSession counts an unknown code against the address; a used or incomplete one counts here.
        let session = try liveSession(input.path.code, caller: caller, now: now)
        guard session.profile == nil, session.missingParameters.isEmpty, let mvpdID = session.mvpd else {
            provider.attempts.fail(.code, caller.address, now: now)
            throw V2Errors.unknownCode
        }
        guard let mvpd = configuration.mvpd(mvpdID, for: caller.requestor.id), mvpd.isTempPass != true else { throw V2Errors.unknownMVPD }
        try provider.attempts.consume(.login, "v2-code:" + session.code, now: now)
        let relay = ClientRegistry.randomToken()
        let requestID = "_" + ClientRegistry.randomToken()
        let login = PendingLogin(
            requestor: caller.requestor.id, client: session.clientID, mvpd: mvpd.id, deviceID: session.deviceID, registrationCode: nil,
            redirectURL: session.redirectURL, requestID: requestID, v2Code: session.code)
        guard provider.state.logins.withLock({ $0.insert(relay, login, expires: now + ServiceProvider.loginLifetime, now: now) }) else {
            throw ServiceProviderError.busy
        }
        let location = "/idp/\(FormCodec.percentEncode(mvpd.id))/login?request_id=\(requestID)&RelayState=\(relay)"
        return .found(
            .init(
                headers: .init(location: location),
                body: .json(
                    V2Errors.information(
                        ServiceProviderError(
                            status: 302, code: "found", message: "Found", details: "continue at the MVPD's login page", action: .none)))))
    }
}

extension ServiceProvider {
    /// The assertion consumer's end of a v2 login: the IdP's response verified for the pending login, the profile
    /// recorded for the session's client and device (and on the session, for `profiles/code/{code}`), then back to
    /// the session's redirect URL.
    func completeV2Login(code: String, samlResponse: String, login: PendingLogin) throws(ServiceProviderError) -> Response {
        let (mvpd, assertion) = try verifiedAssertion(
            samlResponse, requestor: login.requestor, mvpdID: login.mvpd, requestID: login.requestID)
        let now = clock.nowMilliseconds
        let profile = V2Profile(
            mvpd: mvpd.id, userID: assertion.nameID, sessionGUID: UUID().uuidString.lowercased(), notBefore: now,
            notAfter: authenticationExpiry(assertion, now: now), type: "regular", issuer: mvpd.id)
        let session = try v2.sessions.withLock { table -> Result<V2AuthenticationSession, ServiceProviderError> in
            guard case .live(var session, _) = table.lookup(code, now: now), session.profile == nil else {
                return .failure(
                    ServiceProviderError(
                        status: 403, code: "authentication_session_invalidated", message: "Authentication failed",
                        details: "the session expired or was already used", action: .authentication))
            }
            session.profile = profile
            guard table.insert(code, session, expires: session.notAfter, now: now) else { return .failure(.busy) }
            return .success(session)
        }.get()
        let key = V2State.deviceKey(requestor: session.requestor, clientID: session.clientID, deviceID: session.deviceID)
        try storeV2Profile(profile, deviceKey: key, singleSignOnKey: session.singleSignOnKey, now: now)
        if let redirect = session.redirectURL {
            return Response(status: .found, headers: [.location: redirect, .cacheControl: "no-store"])
        }
        return HTMLPage.page(.ok, title: "Signed in", body: "<p>You are signed in. You can return to your device.</p>")
    }
}
