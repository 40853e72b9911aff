import Foundation
import TVEJSON
import TVEPassAPI

extension ServiceProviderClient {
    /// `GET /api/v1/config/{requestor}`: the MVPDs this provider offers the requestor.
    func mvpds() async throws(AccessEnablerError) -> [MVPD] {
        let response = try await call("GET", "/api/v1/config/\(FormCodec.percentEncode(requestor))")
        switch response.status {
        case 200: break
        case 400, 404:
            throw AccessEnablerError(.invalidRequestor, "the service provider does not know the requestor", httpStatus: response.status)
        case 401: throw AccessEnablerError(.accessTokenError, "the service provider refused the client credential", httpStatus: 401)
        default:
            throw AccessEnablerError(
                .configurationUnavailable, "configuration failed (\(Self.describe(response)))", httpStatus: response.status)
        }
        guard let configuration = PassAPI.decode(PassAPI.ConfigurationResponse.self, from: response.body) else {
            throw AccessEnablerError(.configurationUnavailable, "the configuration has no requestor.mvpds.mvpd list")
        }
        // An entry with an empty or oversized field is left out: the list is shown to users and stored with a login.
        func short(_ text: String?, _ limit: Int) -> Bool { (text?.utf8.count ?? 0) <= limit }
        return configuration.mvpds.prefix(1000).compactMap { entry -> MVPD? in
            guard let id = entry.id, !id.isEmpty, short(id, 256), short(entry.displayName, 1024), short(entry.logoURL, 2048),
                short(entry.boardingStatus, 64), short(entry.platformMappingID, 256)
            else { return nil }
            let required = (entry.requiredMetadataFields ?? []).prefix(64).filter { short($0, 256) }
            return MVPD(
                id: id, displayName: entry.displayName ?? id, logoURL: entry.logoURL.flatMap(URL.init(string:)),
                enablePlatformServices: entry.enablePlatformServices ?? false, boardingStatus: entry.boardingStatus,
                platformMappingID: entry.platformMappingID, requiredMetadataFields: Array(required), serviceProvider: baseURL)
        }
    }

    /// `POST /reggie/v1/{requestor}/regcode`: a registration code for the device.
    func registrationCode(deviceID: String, mvpd: String?) async throws(AccessEnablerError) -> String {
        var form = [("deviceId", deviceID), ("device_info", deviceInfo)]
        if let mvpd { form.append(("mvpd", mvpd)) }
        let response = try await call("POST", "/reggie/v1/\(FormCodec.percentEncode(requestor))/regcode", form: form)
        guard response.status == 201, let code = PassAPI.decode(PassAPI.RegistrationCodeRecord.self, from: response.body)?.code else {
            throw AccessEnablerError(
                .genericAuthentication, "no registration code (\(Self.describe(response)))", httpStatus: response.status)
        }
        return code
    }

    /// The page the app opens for the MVPD login (`GET /api/v1/authenticate`).
    /// `data` (from `getAuthentication:withData:`) travels as `generic_data`, a JSON object.
    func authenticationURL(mvpd: String, registrationCode: String, redirectURL: String, data: [String: String] = [:]) -> URL {
        var fields = [
            ("requestor_id", requestor), ("mso_id", mvpd), ("reg_code", registrationCode), ("noflash", "true"), ("no_iframe", "true"),
        ]
        if !data.isEmpty { fields.append(("generic_data", JSONValue.object(data.mapValues { .string($0) }).jsonText)) }
        // redirect_url comes last, as Adobe asks.
        return url("/api/v1/authenticate", fields + [("redirect_url", redirectURL)])
    }

    /// `GET /api/v1/tokens/authn`: the device's authentication, or nil when there is none (404) or it expired (410).
    func authenticationToken(deviceID: String, platformSSO: Bool = false) async throws(AccessEnablerError) -> AuthenticationToken? {
        let response = try await call("GET", "/api/v1/tokens/authn", query: [("requestor", requestor), ("deviceId", deviceID)])
        switch response.status {
        case 200:
            guard let token = PassAPI.decode(PassAPI.AuthenticationTokenResponse.self, from: response.body) else {
                throw AccessEnablerError(.internalAuthentication, "the authentication token lacks mvpd, userId or expires")
            }
            return AuthenticationToken(
                requestor: requestor, mvpd: token.mvpd, userID: token.userID, expires: token.expires.milliseconds, platformSSO: platformSSO)
        case 404, 410, 412: return nil
        default:
            throw AccessEnablerError(
                .genericAuthentication, "tokens/authn failed (\(Self.describe(response)))", httpStatus: response.status)
        }
    }

    /// `GET /api/v1/authorize`.
    /// `data` (from `checkAuthorization:withData:`) travels as `generic_data`, a JSON object.
    func authorize(deviceID: String, resource: String, data: [String: String] = [:]) async throws(AccessEnablerError) -> AuthorizationToken
    {
        var query = [("requestor", requestor), ("deviceId", deviceID), ("resource", resource)]
        if !data.isEmpty { query.append(("generic_data", JSONValue.object(data.mapValues { .string($0) }).jsonText)) }
        let response = try await call("GET", "/api/v1/authorize", query: query)
        switch response.status {
        case 200:
            guard let authorization = PassAPI.decode(PassAPI.AuthorizationResponse.self, from: response.body) else {
                throw AccessEnablerError(.internalAuthorization, "the authorization lacks mvpd or expires")
            }
            return AuthorizationToken(resource: resource, mvpd: authorization.mvpd, expires: authorization.expires.milliseconds)
        case 403:
            // The MVPD's message, passed through.
            if let details = Self.details(response), let body = Self.errorBody(response),
                body.code?.hasPrefix("authentication") == true || body.message == "User not Authenticated Error"
            {
                throw AccessEnablerError(.userNotAuthenticated, details, httpStatus: 403)
            }
            throw AccessEnablerError(.userNotAuthorized, Self.details(response) ?? "the MVPD denied the authorization", httpStatus: 403)
        case 412: throw AccessEnablerError(.userNotAuthenticated, "the device is not authenticated", httpStatus: 412)
        default:
            throw AccessEnablerError(.genericAuthorization, "authorize failed (\(Self.describe(response)))", httpStatus: response.status)
        }
    }

    /// `GET /api/v1/tokens/media`: the Base64 short media token.
    func mediaToken(deviceID: String, resource: String) async throws(AccessEnablerError) -> String {
        let response = try await call(
            "GET", "/api/v1/tokens/media", query: [("requestor", requestor), ("deviceId", deviceID), ("resource", resource)])
        switch response.status {
        case 200:
            guard let token = PassAPI.decode(PassAPI.MediaTokenResponse.self, from: response.body)?.serializedToken, !token.isEmpty
            else {
                throw AccessEnablerError(.internalAuthorization, "the media-token answer has no serializedToken")
            }
            return token
        case 412: throw AccessEnablerError(.userNotAuthenticated, "the device is not authenticated", httpStatus: 412)
        default:
            throw AccessEnablerError(.genericAuthorization, "tokens/media failed (\(Self.describe(response)))", httpStatus: response.status)
        }
    }

    /// `GET /api/v1/preauthorize`.
    func preauthorize(deviceID: String, resources: [String]) async throws(AccessEnablerError) -> [PreauthorizationDecision] {
        let response = try await call(
            "GET", "/api/v1/preauthorize",
            query: [("requestor", requestor), ("deviceId", deviceID), ("resource", resources.joined(separator: ","))])
        switch response.status {
        case 200: break
        case 403, 412: throw AccessEnablerError(.userNotAuthenticated, "the device is not authenticated", httpStatus: response.status)
        case 400 where Self.errorBody(response)?.code == "too_many_resources":
            throw AccessEnablerError(.tooManyResources, "too many resources in one preauthorization", httpStatus: 400)
        default:
            throw AccessEnablerError(.genericAuthorization, "preauthorize failed (\(Self.describe(response)))", httpStatus: response.status)
        }
        guard let preauthorization = PassAPI.decode(PassAPI.PreauthorizationResponse.self, from: response.body) else {
            throw AccessEnablerError(.genericAuthorization, "the preauthorization has no resources list")
        }
        return preauthorization.resources.map { decision in
            PreauthorizationDecision(
                resource: decision.id, authorized: decision.authorized ?? false, message: decision.message ?? decision.error?.details)
        }
    }

    /// `GET /api/v1/tokens/usermetadata`: the document as sent (values possibly encrypted).
    func userMetadata(deviceID: String) async throws(AccessEnablerError) -> Data {
        let response = try await call("GET", "/api/v1/tokens/usermetadata", query: [("requestor", requestor), ("deviceId", deviceID)])
        switch response.status {
        case 200: return response.body
        case 403, 412: throw AccessEnablerError(.userNotAuthenticated, "the device is not authenticated", httpStatus: response.status)
        default:
            throw AccessEnablerError(.internalError, "tokens/usermetadata failed (\(Self.describe(response)))", httpStatus: response.status)
        }
    }

    /// `DELETE /api/v1/logout`.
    func logout(deviceID: String) async throws(AccessEnablerError) {
        let response = try await call("DELETE", "/api/v1/logout", query: [("requestor", requestor), ("deviceId", deviceID)])
        guard (200..<300).contains(response.status) else {
            throw AccessEnablerError(.internalError, "logout failed (\(Self.describe(response)))", httpStatus: response.status)
        }
    }

    /// The logout page the app opens (`navigateToUrl`) for the MVPD side of the logout; it ends at `redirectURL`.
    func logoutURL(deviceID: String, redirectURL: String) -> URL {
        url("/api/v1/logout", [("requestor", requestor), ("deviceId", deviceID), ("redirect_url", redirectURL)])
    }

    /// `GET /api/v1/{requestor}/profile-requests/{mvpd}`: the opaque payload the platform SSO framework needs.
    func profileRequest(mvpd: String, deviceID: String, deviceType: String) async throws(AccessEnablerError) -> String {
        let response = try await call(
            "GET", "/api/v1/\(FormCodec.percentEncode(requestor))/profile-requests/\(FormCodec.percentEncode(mvpd))",
            query: [("deviceId", deviceID), ("deviceType", deviceType)])
        guard response.status == 200, response.body.count <= 64 * 1024 else {
            throw AccessEnablerError(.platformSSO, "profile request failed (\(Self.describe(response)))", httpStatus: response.status)
        }
        return String(decoding: response.body, as: UTF8.self)
    }

    /// `POST /api/v1/tokens/authn` (token exchange) with the platform's SAML response, normalized as the cookbook says:
    /// whitespace runs collapsed, newlines removed, trimmed, Base64 (then form-encoded, once).
    func exchange(deviceID: String, mvpd: String, deviceType: String, samlResponse: String) async throws(AccessEnablerError) {
        let value = PlatformExchange.normalizedSAMLResponse(samlResponse)
        let response = try await call(
            "POST", "/api/v1/tokens/authn",
            form: [
                ("requestor", requestor), ("deviceId", deviceID), ("mvpd", mvpd),
                ("deviceType", deviceType), ("SAMLResponse", value),
            ])
        guard response.status == 204 || response.status == 200 else {
            throw AccessEnablerError(
                .genericAuthentication, "the token exchange failed (\(Self.describe(response)))", httpStatus: response.status)
        }
    }
}
