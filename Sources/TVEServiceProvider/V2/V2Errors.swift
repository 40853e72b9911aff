import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

/// The REST API v2 errors of the local service provider, with Adobe's Enhanced Error codes (the enum of
/// `UserMetadataResponse.error` in Adobe's file) and the statuses Adobe's file gives them.
enum V2Errors {
    static func badRequest(_ code: String, _ details: String, action: PassAPI.ErrorAction = .none) -> ServiceProviderError {
        ServiceProviderError(status: 400, code: code, message: "Bad request", details: details, action: action)
    }
    /// A header that cannot be read, answered with its Enhanced Error code.
    static func badRequest(_ code: PassAPIv2.HeaderError.Code, _ details: String, action: PassAPI.ErrorAction = .none)
        -> ServiceProviderError
    {
        badRequest(code.rawValue, details, action: action)
    }

    static let unknownServiceProvider = badRequest(
        "invalid_parameter_service_provider", "the service provider is not configured here", action: .configuration)
    static let unknownMVPD = badRequest("invalid_parameter_mvpd", "the MVPD does not serve this service provider", action: .configuration)
    static let unknownCode = badRequest("invalid_parameter_code", "the code is unknown, expired or already used", action: .authentication)
    static let invalidRedirectURL = badRequest(
        "invalid_parameter_redirect_url",
        "redirectUrl is neither a registered redirect URL of the service provider nor a page on its domains",
        action: .configuration)
    static let missingDeviceIdentifier = badRequest(
        "invalid_header_device_identifier", "the AP-Device-Identifier header is required")
    static let missingDeviceInfo = badRequest("invalid_header_device_info", "the X-Device-Info header is required")
    static let invalidAccessToken = ServiceProviderError(
        status: 401, code: "invalid_access_token_client_application", message: "Unauthorized",
        details: "a valid Authorization: Bearer access token is required", action: .applicationRegistration)
    static let wrongServiceProvider = ServiceProviderError(
        status: 401, code: "invalid_access_token_service_provider", message: "Unauthorized",
        details: "The access token is invalid due to invalid service provider", action: .applicationRegistration)
    static let missingResources = badRequest(
        "invalid_parameter_resources", "the body must be JSON {\"resources\": [...]} with at least one resource")
    static func tooManyResources(_ limit: Int) -> ServiceProviderError {
        badRequest("too_many_resources", "at most \(limit) resource\(limit == 1 ? "" : "s") per request")
    }
    static let invalidPartner = badRequest("invalid_parameter_partner", "the only partner is Apple", action: .configuration)
    /// A body over the route's limit: 413 with the route's parameter code (Adobe's enum has no code of its own for it).
    static func tooLarge(_ code: String) -> ServiceProviderError {
        ServiceProviderError(
            status: 413, code: code, message: "Payload Too Large", details: "the body is over the limit of this route", action: .none)
    }

    // Per decision (HTTP 200 with an item error).
    static let profileMissing = ServiceProviderError(
        status: 403, code: "authenticated_profile_missing", message: "User not Authenticated Error",
        details: "no authenticated profile for this device and MVPD", action: .authentication)
    static let deniedByDegradationRule = ServiceProviderError(
        status: 403, code: "authorization_denied_by_degradation_rule",
        message: "The integration has an AuthZNone rule applied for the requested resources",
        details: "degraded access denies every authorization with this MVPD (AuthZNone)", action: .none)

    /// The v2 code of a v1 decision error.
    static func decision(_ error: ServiceProviderError, preauthorization: Bool) -> ServiceProviderError {
        switch error.code {
        case "authorization_denied_by_mvpd" where preauthorization:
            return ServiceProviderError(
                status: error.httpStatus, code: "preauthorization_denied_by_mvpd", message: error.message, details: error.details,
                action: error.action)
        case "authorization_denied_by_requestor":
            return badRequest("invalid_parameter_resources", error.details ?? "the service provider does not offer this resource")
        default: return error
        }
    }

    /// The Enhanced Error body of `error`, in the shape of Adobe's file.
    static func information(_ error: ServiceProviderError) -> Components.Schemas.ErrorInformation {
        Components.Schemas.ErrorInformation(
            action: error.action.rawValue, code: error.code, details: error.details,
            helpUrl: ServiceProviderError.helpURL, message: error.message, status: Int32(error.httpStatus),
            trace: UUID().uuidString.lowercased())
    }
}
