import Foundation
import TVEMetadata

/// REST API v1 under the flows: a registration code and the `authenticate` page for a login, `tokens/authn` for the
/// authentication, `authorize` then `tokens/media` for a media token.
extension ServiceProviderClient: EntitlementService {
    nonisolated var api: AsyncAccessEnabler.ServiceAPI { .v1 }

    func apply(_ options: AsyncAccessEnabler.Options, extraFields: [(String, String)], deviceInfo: String) async {
        await setExtras(extraFields, deviceInfo: deviceInfo)
    }

    /// REST API v1 has no TempPass identity.
    func restore(tempPassIdentity: [String: String]?, mvpd: String?) {}

    func startLogin(_ request: LoginRequest) async throws(AccessEnablerError) -> LoginStart {
        let code: String
        do {
            code = try await registrationCode(deviceID: request.deviceID, mvpd: request.mvpd.id)
        } catch {
            throw AccessEnablerError(.genericAuthentication, error.message, httpStatus: error.httpStatus)
        }
        let page = authenticationURL(mvpd: request.mvpd.id, registrationCode: code, redirectURL: request.redirectURL, data: request.data)
        return .login(code: code, page: page, notAfter: nil)
    }

    func authentication(deviceID: String, mvpd: MVPD, code: String?) async throws(AccessEnablerError) -> AuthenticationToken? {
        do {
            return try await authenticationToken(deviceID: deviceID)
        } catch {
            throw AccessEnablerError(.genericAuthentication, error.message, httpStatus: error.httpStatus)
        }
    }

    func refreshedAuthentication(deviceID: String, stored: AuthenticationToken?, offered: [MVPD]) async throws(AccessEnablerError)
        -> AuthenticationToken?
    {
        guard let stored else { return nil }
        return try await authenticationToken(deviceID: deviceID) == nil ? nil : stored
    }

    func mediaToken(deviceID: String, mvpd: String, resource: String, data: [String: String], stored: AuthorizationToken?)
        async throws(AccessEnablerError) -> (token: String, authorization: AuthorizationToken)
    {
        var authorization = stored
        while true {
            let current: AuthorizationToken
            if let authorization {
                current = authorization
            } else {
                current = try await authorize(deviceID: deviceID, resource: resource, data: data)
            }
            do {
                return (try await mediaToken(deviceID: deviceID, resource: resource), current)
            } catch  where authorization != nil && (error.httpStatus == 404 || error.httpStatus == 410) {
                // The service provider no longer holds the stored authorization: authorize again, once.
                authorization = nil
            }
        }
    }

    func preauthorize(deviceID: String, mvpd: String, resources: [String]) async throws(AccessEnablerError) -> [PreauthorizationDecision] {
        try await preauthorize(deviceID: deviceID, resources: resources)
    }

    func userMetadata(deviceID: String, mvpd: String) async throws(AccessEnablerError) -> UserMetadataDocument {
        let body = try await userMetadata(deviceID: deviceID)
        do {
            return try UserMetadataDocument(jsonText: body)
        } catch {
            throw AccessEnablerError(.internalError, "the user metadata document is not valid")
        }
    }

    func logout(deviceID: String, mvpd: String, redirectURL: String, platform: EntitlementPlatform) async -> LogoutStep {
        var step = LogoutStep(page: nil, partnerLogout: false, error: nil)
        do {
            try await logout(deviceID: deviceID)
        } catch {
            step.error = error
        }
        if platform == .iOS { step.page = logoutURL(deviceID: deviceID, redirectURL: redirectURL) }
        return step
    }

    func platformExchange(_ exchange: PlatformExchange) async throws(AccessEnablerError) -> AuthenticationToken {
        let deviceType = exchange.platform.rawValue
        let payload = try await profileRequest(mvpd: exchange.mvpd.id, deviceID: exchange.deviceID, deviceType: deviceType)
        let samlResponse = try await exchange.samlResponse(payload, exchange.mvpd.requiredMetadataFields)
        try await self.exchange(deviceID: exchange.deviceID, mvpd: exchange.mvpd.id, deviceType: deviceType, samlResponse: samlResponse)
        guard let token = try await authenticationToken(deviceID: exchange.deviceID, platformSSO: true) else {
            throw AccessEnablerError(.genericAuthentication, "the token exchange left no authentication")
        }
        return token
    }
}
