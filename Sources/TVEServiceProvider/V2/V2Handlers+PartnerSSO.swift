import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    /// The one partner of partner single sign-on.
    static let partner = "Apple"

    /// What `AP-Partner-Framework-Status` says, checked in Adobe's order: the header is there, the viewer granted
    /// access, the partner names a provider, and that provider's session has not ended.
    enum PartnerStatus {
        case granted(providerID: String, expires: Int64?)
        /// The viewer has not granted (or not yet decided) access, or the partner knows no provider: fall back.
        case fallback(ServiceProviderError)
    }

    func partnerStatus(_ caller: V2Caller, now: Int64) -> PartnerStatus {
        guard let status = caller.partnerFrameworkStatus, let access = status.frameworkPermissionInfo?.accessStatus else {
            return .fallback(
                V2Errors.badRequest("invalid_header_pfs_permission_access_not_present", "AP-Partner-Framework-Status is required"))
        }
        switch access {
        case "granted": break
        case "notDetermined":
            return .fallback(V2Errors.badRequest("invalid_header_pfs_permission_access_not_determined", "the viewer has not decided"))
        default:
            return .fallback(V2Errors.badRequest("invalid_header_pfs_permission_access_not_granted", "the viewer did not grant access"))
        }
        guard let providerID = status.frameworkProviderInfo?.id, !providerID.isEmpty else {
            return .fallback(V2Errors.badRequest("invalid_header_pfs_provider_id_not_determined", "the partner names no provider"))
        }
        let expires = status.frameworkProviderInfo?.expirationDate
        if let expires, expires <= now {
            return .fallback(V2Errors.badRequest("invalid_header_pfs_provider_info_expired", "the partner's provider session has ended"))
        }
        return .granted(providerID: providerID, expires: expires)
    }

    /// The MVPD a partner's provider ID names, when it is boarded for platform single sign-on.
    func partnerMVPD(_ providerID: String, requestor: String) -> ServiceProviderConfiguration.MVPD? {
        (configuration.mvpds(for: requestor) ?? []).first { $0.platformMappingId == providerID && $0.enablePlatformServices == true }
    }

    /// `POST /api/v2/{serviceProvider}/sessions/sso/Apple` (`domainName`, `redirectUrl`): with the viewer's grant and a
    /// boarded MVPD, a `partner_profile` session whose SAML request the app hands the partner; otherwise the documented
    /// fallback, a classic session (`pfs_fallback` when the partner status does not allow single sign-on,
    /// `configuration_fallback` when the MVPD is not boarded for it).
    func retrieveVerificationTokenUsingPOST(_ input: Operations.RetrieveVerificationTokenUsingPOST.Input) async throws
        -> Operations.RetrieveVerificationTokenUsingPOST.Output
    {
        guard input.path.partner == Self.partner else { throw V2Errors.invalidPartner }
        let caller = try V2Caller.get()
        guard case .urlEncodedForm(let form) = input.body else {
            throw V2Errors.badRequest("invalid_parameter_redirect_url", "domainName and redirectUrl are required")
        }
        let parameters = try SessionParameters(nil, form.domainName, form.redirectUrl, requestor: caller.requestor, provider: provider)
        let (clientID, deviceID) = try caller.clientDevice()
        let now = self.now
        var fallbackMVPD: String?
        var reason = "pfs_fallback"
        if case .granted(let providerID, _) = partnerStatus(caller, now: now) {
            if let mvpd = partnerMVPD(providerID, requestor: caller.requestor.id) {
                try provider.attempts.consume(.deviceState, clientID, now: now)
                let requestID = "_" + ClientRegistry.randomToken()
                let key = "v2\u{0}" + (try caller.deviceKey()) + "\u{0}" + mvpd.id
                let stored = provider.state.profileRequests.withLock {
                    $0.insert(key, requestID, expires: now + ServiceProvider.loginLifetime, now: now)
                }
                guard stored else { throw ServiceProviderError.busy }
                return .ok(
                    .init(
                        body: .json(
                            .init(
                                actionName: "partner_profile", actionType: "direct",
                                authenticationRequest: .init(
                                    attributesNames: mvpd.requiredMetadataFields ?? [], request: authnRequest(requestID, now: now),
                                    _type: "saml"),
                                mvpd: mvpd.id, reasonType: "none", serviceProvider: caller.requestor.id,
                                sessionId: UUID().uuidString.lowercased()))))
            }
            fallbackMVPD = configuration.mvpds(for: caller.requestor.id)?.first { $0.platformMappingId == providerID }?.id
            reason = "configuration_fallback"
        }
        let session = try store(
            V2AuthenticationSession(
                code: "", requestor: caller.requestor.id, clientID: clientID, deviceID: deviceID,
                deviceInfo: V2AuthenticationSession.summary(caller.deviceInfo?.info), mvpd: fallbackMVPD, domainName: parameters.domainName,
                redirectURL: parameters.redirectURL, notBefore: now, notAfter: now + Self.sessionLifetime, profile: nil), now: now)
        var answer = sessionResponse(session)
        answer.reasonType = reason
        return .ok(.init(body: .json(answer)))
    }

    /// `POST /api/v2/{serviceProvider}/profiles/sso/Apple` (`SAMLResponse`): the partner's SAML response, checked
    /// with TVESAML against the device's outstanding request, becomes an `appleSSO` profile issued by `Apple`, ending
    /// when the authentication or the partner's provider session ends, whichever is first.
    func createPartnerProfileUsingPOST(_ input: Operations.CreatePartnerProfileUsingPOST.Input) async throws
        -> Operations.CreatePartnerProfileUsingPOST.Output
    {
        guard input.path.partner == Self.partner else { throw V2Errors.invalidPartner }
        let caller = try V2Caller.get()
        guard case .urlEncodedForm(let form) = input.body, !form.samlResponse.isEmpty else {
            throw V2Errors.badRequest("invalid_parameter_saml_response", "SAMLResponse is required")
        }
        let now = self.now
        let status = partnerStatus(caller, now: now)
        guard case .granted(let providerID, let providerExpiry) = status else {
            if case .fallback(let error) = status { throw error }
            throw ServiceProviderError.internalError
        }
        guard let mvpd = partnerMVPD(providerID, requestor: caller.requestor.id) else {
            throw V2Errors.badRequest("invalid_header_pfs_provider_id_mismatch", "the partner's provider is not boarded for single sign-on")
        }
        let key = "v2\u{0}" + (try caller.deviceKey()) + "\u{0}" + mvpd.id
        guard let requestID = provider.state.profileRequests.withLock({ $0.take(key, now: now) }) else {
            throw V2Errors.badRequest("invalid_parameter_saml_response", "no partner session is outstanding for this device and MVPD")
        }
        let assertion: SSOAssertionSummary
        do {
            let (_, verified) = try provider.verifiedAssertion(
                form.samlResponse, requestor: caller.requestor.id, mvpdID: mvpd.id, requestID: requestID)
            assertion = SSOAssertionSummary(nameID: verified.nameID, expires: provider.authenticationExpiry(verified, now: now))
        } catch {
            throw V2Errors.badRequest("invalid_parameter_saml_response", error.details ?? "the SAML response was rejected")
        }
        let profile = V2Profile(
            mvpd: mvpd.id, userID: assertion.nameID, sessionGUID: UUID().uuidString.lowercased(), notBefore: now,
            notAfter: min(assertion.expires, providerExpiry ?? .max), type: "appleSSO", issuer: Self.partner)
        guard state.store(profile, for: try caller.deviceKey(), now: now) else { throw ServiceProviderError.busy }
        return .ok(.init(body: .json(try profilesResponse([profile], requestor: caller.requestor))))
    }

    struct SSOAssertionSummary {
        let nameID: String
        let expires: Int64
    }

    /// A SAML 2.0 AuthnRequest (Base64) with `requestID`, addressed from this service provider: what the partner's
    /// framework answers with a SAML response.
    func authnRequest(_ requestID: String, now: Int64) -> String {
        let instant = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now) / 1000))
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?><samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" \
            xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="\(requestID)" Version="2.0" IssueInstant="\(instant)" \
            AssertionConsumerServiceURL="\(HTMLForm.escape(configuration.acsURL))"><saml:Issuer>\(HTMLForm.escape(configuration.spEntityID))\
            </saml:Issuer></samlp:AuthnRequest>
            """
        return Base64.encode(Array(xml.utf8))
    }
}
