import Foundation
import OpenAPIRuntime
import TVEConcurrency
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
    /// boarded MVPD, a `partner_profile` session (`url`: where its profile is made) whose SAML request the app hands the
    /// partner; with the AuthNAll degradation rule on that MVPD, `authorize` (`degraded`); otherwise the documented
    /// fallbacks, a classic session: `pfs_fallback` when the partner status does not allow single sign-on,
    /// `configuration_fallback` when the named MVPD is not boarded for it, `missing_parameters_fallback` (a session to
    /// resume) when the form lacks `domainName` or `redirectUrl`.
    ///
    /// **Choice:** a fallback session is for the MVPD the partner's provider ID names (its `platformMappingId`, else
    /// its ID); when the status names none (access denied), for the requestor's one MVPD boarded for the partner when
    /// it has exactly one, as Adobe's sample answers `authenticate` for that MVPD; else for no MVPD (`resume`).
    func retrieveVerificationTokenUsingPOST(_ input: Operations.RetrieveVerificationTokenUsingPOST.Input) async throws
        -> Operations.RetrieveVerificationTokenUsingPOST.Output
    {
        guard input.path.partner == Self.partner else { throw V2Errors.invalidPartner }
        let caller = try V2Caller.get()
        var form: Components.Schemas.RetrieveVerificationTokenUsingPOSTRequest?
        if case .urlEncodedForm(let body) = input.body { form = body }
        let parameters = try SessionParameters(nil, form?.domainName, form?.redirectUrl, requestor: caller.requestor, provider: provider)
        let holder = try caller.holder()
        let now = self.now
        var fallbackMVPD: String?
        var reason = "pfs_fallback"
        let requestor = caller.requestor.id
        if case .granted(let providerID, _) = partnerStatus(caller, now: now) {
            if let mvpd = partnerMVPD(providerID, requestor: requestor) {
                if provider.degradedAccess.authenticatingSince(mvpd.id) != nil {
                    return .ok(.init(body: .json(authorizeAnswer(mvpd.id, reason: "degraded", requestor: requestor))))
                }
                if parameters.domainName != nil, parameters.redirectURL != nil {
                    return .ok(.init(body: .json(try partnerProfileSession(mvpd, holder: holder, now: now))))
                }
                fallbackMVPD = mvpd.id
                reason = "missing_parameters_fallback"
            } else {
                fallbackMVPD = namedMVPD(providerID, requestor: requestor)?.id
                reason = "configuration_fallback"
            }
        } else if let providerID = caller.partnerFrameworkStatus?.frameworkProviderInfo?.id, !providerID.isEmpty {
            fallbackMVPD = namedMVPD(providerID, requestor: requestor)?.id
        } else {
            let boarded = (configuration.mvpds(for: requestor) ?? []).filter { $0.enablePlatformServices == true && $0.isTempPass != true }
            fallbackMVPD = boarded.count == 1 ? boarded[0].id : nil
        }
        let session = try store(
            V2AuthenticationSession(
                code: "", requestor: requestor, clientID: holder.clientID, deviceID: holder.deviceID,
                deviceInfo: V2AuthenticationSession.summary(caller.deviceInfo?.info), mvpd: fallbackMVPD, domainName: parameters.domainName,
                redirectURL: parameters.redirectURL, notBefore: now, notAfter: now + Self.sessionLifetime, profile: nil), now: now)
        var answer = sessionResponse(session)
        answer.reasonType = reason
        return .ok(.init(body: .json(answer)))
    }

    /// The MVPD of the requestor that a partner's provider ID names: by its `platformMappingId`, else by its ID.
    func namedMVPD(_ providerID: String, requestor: String) -> ServiceProviderConfiguration.MVPD? {
        let mvpds = configuration.mvpds(for: requestor) ?? []
        return mvpds.first { $0.platformMappingId == providerID } ?? mvpds.first { $0.id == providerID && $0.isTempPass != true }
    }

    /// A `partner_profile` session for `mvpd`: the SAML request the partner answers, bound to the device.
    func partnerProfileSession(_ mvpd: ServiceProviderConfiguration.MVPD, holder: V2Holder, now: Int64) throws(ServiceProviderError)
        -> Components.Schemas.SessionResponse
    {
        try provider.attempts.consume(.deviceState, holder.clientID, now: now)
        let requestID = "_" + ClientRegistry.randomToken()
        let key = "v2\u{0}" + holder.deviceKey + "\u{0}" + mvpd.id
        let stored = provider.state.profileRequests.withLock {
            $0.insert(key, requestID, expires: now + ServiceProvider.loginLifetime, now: now)
        }
        guard stored else { throw ServiceProviderError.busy }
        let requestor = holder.requestor.id
        return .init(
            actionName: "partner_profile", actionType: "direct",
            authenticationRequest: .init(
                attributesNames: mvpd.requiredMetadataFields ?? [], request: authnRequest(requestID, now: now), _type: "saml"),
            mvpd: mvpd.id, reasonType: "none", serviceProvider: requestor, sessionId: UUID().uuidString.lowercased(),
            url: "\(PassAPIv2.pathPrefix)/\(FormCodec.percentEncode(requestor))/profiles/sso/\(Self.partner)")
    }

    /// `POST /api/v2/{serviceProvider}/profiles/sso/Apple` (`SAMLResponse`): the partner's SAML response, checked
    /// with TVESAML against the device's outstanding request, becomes an `appleSSO` profile issued by `Apple`, ending
    /// when the authentication or the partner's provider session ends, whichever is first. With the AuthNAll
    /// degradation rule on the MVPD, the answer is the device's `degraded` profile (the MVPD is down: its response
    /// is not needed, and the outstanding request ends).
    ///
    /// **Choice:** `200 OK`, as `restApiV2.json` lists (Adobe's page says `201 Created`; its degraded sample, `200`).
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
        if let since = provider.degradedAccess.authenticatingSince(mvpd.id) {
            _ = provider.state.profileRequests.withLock { $0.take(key, now: now) }
            let profile = degradedProfile(mvpd.id, deviceKey: try caller.deviceKey(), since: since, now: now)
            return .ok(.init(body: .json(try profilesResponse([profile], requestor: caller.requestor))))
        }
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
