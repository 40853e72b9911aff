import Foundation
import OpenAPIRuntime
import TVEJSON
import TVEMetadata
import TVEPassAPIv2

/// REST API v2 under the flows (the mapping of Adobe's migration guide): a session for a login, profiles for the
/// authentication, decisions for media tokens, `logout/{mvpd}` for the logout, the partner calls for Apple's single
/// sign-on.
extension V2ServiceProviderClient: EntitlementService {
    nonisolated var api: AsyncAccessEnabler.ServiceAPI { .v2 }

    var registration: ClientRegistration? { get async { await credentials.registration } }

    func apply(_ options: AsyncAccessEnabler.Options, extraFields: [(String, String)], deviceInfo: String) async {
        apply(deviceInfo: options.deviceInfo, visitorID: options.visitorID)
        // Registration and token requests carry the same device information as the v2 calls.
        await credentials.set(deviceInfo: options.deviceInfo ?? V2DeviceHeaders.defaultDeviceInfoHeader(for: platform))
    }

    func mvpds() async throws(AccessEnablerError) -> [MVPD] { try await mvpds(serviceProvider: serviceProviderURL) }

    func restore(tempPassIdentity: [String: String]?, mvpd: String?) {
        guard let mvpd else { return }
        tempPassIdentities[mvpd] = tempPassIdentity.flatMap { $0.isEmpty ? nil : PassAPIv2.TempPassIdentity(values: $0).header }
    }

    /// Runs `body` with the TempPass identity of `mvpd`, if it has one, in its requests.
    func withTempPass<Value>(_ mvpd: String, _ body: () async throws(AccessEnablerError) -> Value) async throws(AccessEnablerError)
        -> Value
    {
        guard let identity = tempPassIdentities[mvpd] else { return try await body() }
        let result = await V2ExtraHeadersMiddleware.$tempPassIdentity.withValue(identity) { () async -> Result<Value, AccessEnablerError> in
            do throws(AccessEnablerError) { return .success(try await body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The page a session or logout answer names. **Choice:** a path beginning `/authenticate/` is relative to
    /// `/api/v2` (Adobe's documentation writes the session's URL so); another path is relative to the service
    /// provider's host (`/api/v2/authenticate/…`, an MVPD's `/idp/…`). An absolute URL must have a host and no user
    /// information, and be on the service provider's own scheme, host and port; with `elsewhere` (a logout, which may
    /// end on the MVPD's site), any host over https. Anything else (another scheme, a cleartext page elsewhere) is
    /// refused: a service provider's answer cannot send the app's web view where it likes.
    func absolute(_ path: String, elsewhere: Bool = false) -> URL? {
        guard path.utf8.count <= 8192, !path.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F || $0 == "\\" })
        else { return nil }
        if path.hasPrefix("/"), !path.hasPrefix("//") {
            let base = serviceProviderURL.absoluteString.trimmingCharacters(in: ["/"])
            return URL(string: base + (path.hasPrefix("/authenticate/") ? PassAPIv2.pathPrefix + path : path))
        }
        guard let url = URL(string: path), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty,
            url.user == nil, url.password == nil
        else { return nil }
        let provider = (
            scheme: serviceProviderURL.scheme?.lowercased(), host: serviceProviderURL.host?.lowercased(), port: serviceProviderURL.port
        )
        if scheme == provider.scheme, host == provider.host, url.port == provider.port { return url }
        return elsewhere && scheme == "https" ? url : nil
    }

    /// **Choice:** sessions name the requestor's first configured domain, else the redirect URL's host.
    func sessionDomain(redirectURL: String) -> String {
        domainName ?? URL(string: redirectURL)?.host ?? "localhost"
    }

    func startLogin(_ request: LoginRequest) async throws(AccessEnablerError) -> LoginStart {
        prepare(deviceID: request.deviceID)
        // A TempPass chosen with data (`getAuthentication:withData:`): the data identify the viewer of a promotional
        // pass, sent as AP-TempPass-Identity with the calls about this MVPD.
        if request.mvpd.isTempPass { restore(tempPassIdentity: request.data.isEmpty ? nil : request.data, mvpd: request.mvpd.id) }
        let domain = sessionDomain(redirectURL: request.redirectURL)
        var session = try await withTempPass(request.mvpd.id) { () async throws(AccessEnablerError) in
            try await createSession(mvpd: request.mvpd.id, domainName: domain, redirectURL: request.redirectURL)
        }
        // forceAuthn, and Adobe answers with the profile the device holds: end that profile (as a logout does) and ask
        // again, so that the user logs in afresh, as the SDK's forceAuthn did. A TempPass or degraded access is not a
        // login to redo.
        if request.forceAuthn, session.actionName == "authorize", session.reasonType == "authenticated" || session.reasonType == "none" {
            _ = try await withTempPass(request.mvpd.id) { () async throws(AccessEnablerError) in
                try await logout(mvpd: request.mvpd.id, redirectURL: nil)
            }
            session = try await createSession(mvpd: request.mvpd.id, domainName: domain, redirectURL: request.redirectURL)
        }
        switch session.actionName {
        case "authorize":
            guard let token = try await authentication(deviceID: request.deviceID, mvpd: request.mvpd, code: nil) else {
                throw AccessEnablerError(.genericAuthentication, "the session needs no login, yet the device has no profile")
            }
            return .authenticated(token)
        case "authenticate":
            guard let code = session.code, !code.isEmpty, code.utf8.count <= 64, let path = session.url, let page = absolute(path) else {
                throw AccessEnablerError(.genericAuthentication, "the session has no code or login URL")
            }
            return .login(code: code, page: page, notAfter: session.notAfter?.milliseconds)
        case "resume":
            let missing = (session.missingParameters ?? []).prefix(8).joined(separator: ", ")
            throw AccessEnablerError(.genericAuthentication, "the session lacks parameters: \(missing.prefix(200))")
        default:
            throw AccessEnablerError(.genericAuthentication, "the session's action \"\(session.actionName.prefix(40))\" is not known")
        }
    }

    func authentication(deviceID: String, mvpd: MVPD, code: String?) async throws(AccessEnablerError) -> AuthenticationToken? {
        prepare(deviceID: deviceID)
        let profiles: [String: Components.Schemas.MvpdProfileResponse]
        do {
            if let code {
                profiles = try await self.profiles(code: code)
            } else {
                profiles = try await withTempPass(mvpd.id) { () async throws(AccessEnablerError) in try await self.profiles(mvpd: mvpd.id) }
            }
        } catch  where error.code == .userNotAuthenticated && code == nil {
            return nil  // no profile with the MVPD (yet); a code's own errors go to the polling, which judges them
        }
        return profiles[mvpd.id].flatMap { token(mvpd: mvpd.id, $0) }
    }

    func refreshedAuthentication(deviceID: String, stored: AuthenticationToken?, offered: [MVPD]) async throws(AccessEnablerError)
        -> AuthenticationToken?
    {
        prepare(deviceID: deviceID)
        let profiles: [String: Components.Schemas.MvpdProfileResponse]
        do {
            profiles = try await self.profiles()
        } catch  where error.code == .userNotAuthenticated {
            profiles = [:]  // the device holds no profile (`authenticated_profile_missing`)
        }
        if let stored { return profiles[stored.mvpd].flatMap { token(mvpd: stored.mvpd, $0) } }
        return offered.lazy.compactMap { mvpd in profiles[mvpd.id].flatMap { self.token(mvpd: mvpd.id, $0) } }.first
    }

    /// The authentication a profile stands for (nil when it has ended or is not readable).
    nonisolated func token(mvpd: String, _ profile: Components.Schemas.MvpdProfileResponse) -> AuthenticationToken? {
        guard profile.notAfter > 0 else { return nil }
        let attributes = profile.attributes.additionalProperties
        // The user ID in clear, or decrypted with the app's metadata key (an encrypted one without it stays unknown).
        let userID = ["userID", "upstreamUserID"].lazy.compactMap { key -> String? in
            guard case .string(let value)? = Self.json(attributes[key]?.value) else { return nil }
            switch attributes[key]?.state {
            case "enc":
                guard case .string(let clear)? = try? self.metadataDecryptor?.decryptValue(value) else { return nil }
                return String(clear.prefix(1024))
            default:
                return String(value.prefix(1024))
            }
        }.first
        return AuthenticationToken(
            requestor: requestor, mvpd: mvpd, userID: userID ?? "", expires: profile.notAfter,
            platformSSO: profile._type == "appleSSO" || profile._type == "platformSSO")
    }

    /// `tokenSource` when the profile's attributes do not give it, from the profile's `type`: **choice** `Apple` for
    /// Apple's single sign-on (as the SDK answered), the profile's `issuer` for platform and service-token single sign-on
    /// and for degraded access (Adobe's service issues those: `Adobe`); none for a regular login or a TempPass.
    static func tokenSource(_ profile: Components.Schemas.MvpdProfileResponse) -> String? {
        switch profile._type {
        case "appleSSO": return "Apple"
        case "platformSSO", "serviceTokenSSO", "degraded":
            return profile.issuer.isEmpty || profile.issuer.utf8.count > 256 ? nil : profile.issuer
        default: return nil
        }
    }

    /// A metadata value as TVEKit's JSON.
    static func json(_ value: OpenAPIRuntime.OpenAPIValueContainer?) -> JSONValue? {
        guard let value, let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    func mediaToken(deviceID: String, mvpd: String, resource: String, data: [String: String], stored: AuthorizationToken?)
        async throws(AccessEnablerError) -> (token: String, authorization: AuthorizationToken)
    {
        prepare(deviceID: deviceID)
        // Every v2 authorization brings its media token: a stored decision saves no call.
        let answer = try await withTempPass(mvpd) { () async throws(AccessEnablerError) in
            try await decisions(authorize: true, mvpd: mvpd, resources: [resource])
        }
        guard let decision = answer.first(where: { $0.resource == resource }) else {
            throw AccessEnablerError(.internalAuthorization, "the service provider gave no decision for the resource")
        }
        guard decision.authorized else { throw Self.denial(decision.error, "authorize") }
        guard let token = decision.token, let serialized = token.serializedToken, !serialized.isEmpty else {
            throw AccessEnablerError(.internalAuthorization, "the authorization has no media token")
        }
        let expires = decision.notAfter ?? token.notAfter ?? 0
        return (serialized, AuthorizationToken(resource: resource, mvpd: mvpd, expires: expires))
    }

    /// A decision's denial: its Enhanced Error's code mapped, with the MVPD's words (`details`, else `message`) as the
    /// message, as the seeds' `tokenRequestFailed` passes them on.
    static func denial(_ information: Components.Schemas.ErrorInformation?, _ what: String) -> AccessEnablerError {
        guard let information, let code = information.code else {
            return AccessEnablerError(.userNotAuthorized, "the MVPD did not authorize the resource")
        }
        let words = (information.details ?? information.message).map { String($0.prefix(500)) } ?? String(code.prefix(100))
        let entry = EnhancedErrorMapping.entry(for: code)
        return AccessEnablerError(entry.error, words, httpStatus: nil, enhancedCode: String(code.prefix(100)), advancedStatus: entry.status)
    }

    func preauthorize(deviceID: String, mvpd: String, resources: [String]) async throws(AccessEnablerError) -> [PreauthorizationDecision] {
        prepare(deviceID: deviceID)
        let answer = try await withTempPass(mvpd) { () async throws(AccessEnablerError) in
            try await decisions(authorize: false, mvpd: mvpd, resources: resources)
        }
        return answer.map { decision in
            PreauthorizationDecision(
                resource: decision.resource, authorized: decision.authorized,
                message: (decision.error?.details ?? decision.error?.message).map { String($0.prefix(300)) })
        }
    }

    func userMetadata(deviceID: String, mvpd: String) async throws(AccessEnablerError) -> UserMetadataDocument {
        prepare(deviceID: deviceID)
        let profiles = try await withTempPass(mvpd) { () async throws(AccessEnablerError) in try await self.profiles(mvpd: mvpd) }
        guard let profile = profiles[mvpd] else {
            throw AccessEnablerError(.userNotAuthenticated, "the device has no profile with the MVPD")
        }
        var entries: [String: UserMetadataDocument.Entry] = [:]
        for (key, attribute) in profile.attributes.additionalProperties.prefix(UserMetadataDocument.maximumEntries) {
            switch (attribute.state, Self.json(attribute.value)) {
            case ("enc", .string(let ciphertext)?) where ciphertext.utf8.count <= UserMetadataDocument.maximumCiphertextBytes:
                entries[key] = .encrypted(ciphertext)
            case ("plain", let value?), (nil, let value?):
                entries[key] = .plain(value)
            default:
                continue
            }
        }
        if entries["tokenSource"] == nil, let source = Self.tokenSource(profile) { entries["tokenSource"] = .plain(.string(source)) }
        return UserMetadataDocument(shape: .restV2, updated: nil, entries: entries)
    }

    func logout(deviceID: String, mvpd: String, redirectURL: String, platform: EntitlementPlatform) async -> LogoutStep {
        prepare(deviceID: deviceID)
        var step = LogoutStep(page: nil, partnerLogout: false, error: nil)
        do {
            let answer = try await withTempPass(mvpd) { () async throws(AccessEnablerError) in
                try await logout(mvpd: mvpd, redirectURL: platform == .iOS ? redirectURL : nil)
            }
            tempPassIdentities[mvpd] = nil
            // Whenever Adobe names a page (an MVPD's logout, or a partner logout that has one too), an iOS app opens it.
            if platform == .iOS { step.page = answer?.url.flatMap { absolute($0, elsewhere: true) } }
            step.partnerLogout = answer?.actionName == "partner_logout"
            // The seeds' logout clears every token; REST API v2 ends one MVPD's profile a call. Any other profile the
            // device holds (a login kept from before a forceAuthn with another MVPD, a TempPass) ends too, else the next
            // setRequestor would adopt it and the user would come back signed in.
            var others: [String] = []
            do {
                others = try await profiles().keys.sorted()
            } catch  where error.code == .userNotAuthenticated {}  // no profile left (`authenticated_profile_missing`)
            for other in others where other != mvpd {
                _ = try await withTempPass(other) { () async throws(AccessEnablerError) in try await logout(mvpd: other, redirectURL: nil) }
                tempPassIdentities[other] = nil
            }
        } catch {
            step.error = error
        }
        return step
    }

    func platformExchange(_ exchange: PlatformExchange) async throws(AccessEnablerError) -> AuthenticationToken {
        prepare(deviceID: exchange.deviceID)
        // The platform's own state; without a framework object (an exchange driven by hand), the platform just answered
        // for this provider, so its permission is granted.
        let status =
            await partnerFrameworkStatus(providerID: exchange.providerID)
            ?? PassAPIv2.PartnerFrameworkStatus(
                frameworkPermissionInfo: .init(accessStatus: "granted"),
                frameworkProviderInfo: .init(id: exchange.providerID, expirationDate: exchange.providerExpires))
        let session = try await partnerSession(
            domainName: sessionDomain(redirectURL: exchange.redirectURL), redirectURL: exchange.redirectURL, status: status)
        guard session.actionName == "partner_profile", let request = session.authenticationRequest?.request, !request.isEmpty else {
            throw AccessEnablerError(
                .platformSSO, "the service provider chose the classic login (\(session.reasonType.prefix(40)))")
        }
        let attributes = session.authenticationRequest?.attributesNames ?? exchange.mvpd.requiredMetadataFields
        let samlResponse = try await exchange.samlResponse(request, Array(attributes.prefix(64)))
        let profiles = try await partnerProfile(samlResponse: PlatformExchange.normalizedSAMLResponse(samlResponse), status: status)
        guard let profile = profiles[exchange.mvpd.id], let token = token(mvpd: exchange.mvpd.id, profile) else {
            throw AccessEnablerError(.genericAuthentication, "the platform's SAML response left no profile with the MVPD")
        }
        return token
    }
}
