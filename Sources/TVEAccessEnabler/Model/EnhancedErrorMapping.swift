import Foundation

/// Every Enhanced Error code of REST API v2 (the 66 of `UserMetadataResponse.error` in Adobe's OpenAPI file) mapped onto
/// the AccessEnabler's error codes (the seeds' constants and Adobe's advanced codes), in one table.
///
/// The flow layer reports a v2 error as ``AccessEnablerError`` with ``Entry/error`` and, where the SDK gave one, the
/// advanced status ``Entry/status`` on the `status:` callback. **Choice:** Adobe publishes no such table; this one
/// follows the seeds' meaning of each constant (FORMATS.md §7). A code Adobe adds later maps by its family
/// (``entry(for:)``).
public enum EnhancedErrorMapping {
    /// What one Enhanced Error code becomes.
    public struct Entry: Sendable, Hashable {
        /// The error code of the callback that fails.
        public let error: AccessEnablerError.Code
        /// The advanced status id sent with it (`status:` callback), when the SDK has one.
        public let status: String?

        init(_ error: AccessEnablerError.Code, _ status: String? = nil) {
            self.error = error
            self.status = status
        }
    }

    typealias Code = AccessEnablerError.Code

    /// The table, by Enhanced Error code.
    public static let table: [String: Entry] = [
        // Parameters and headers of the request.
        "invalid_parameter_service_provider": Entry(.invalidRequestor, "CFG400"),
        "invalid_parameter_mvpd": Entry(.providerNotAvailable),
        "invalid_parameter_code": Entry(.genericAuthentication),
        "invalid_parameter_redirect_url": Entry(.genericAuthentication, "SEC403"),
        "invalid_parameter_resources": Entry(.genericAuthorization, "Z130"),
        "invalid_parameter_partner": Entry(.platformSSO, "APPL_ERROR"),
        "invalid_parameter_saml_response": Entry(.platformSSO, "APPL_ERROR"),
        "invalid_header_device_info": Entry(.internalError, "SEC412"),
        "invalid_header_device_identifier": Entry(.internalError, "SEC412"),
        "invalid_header_identity_for_temporary_access": Entry(.genericAuthentication, "N111"),
        "invalid_header_pfs_permission_access_not_present": Entry(.platformSSO, "VSA404"),
        "invalid_header_pfs_permission_access_not_determined": Entry(.platformSSO, "VSA404"),
        "invalid_header_pfs_permission_access_not_granted": Entry(.platformSSO, "VSA403"),
        "invalid_header_pfs_provider_id_not_determined": Entry(.platformSSO, "N003"),
        "invalid_header_pfs_provider_id_mismatch": Entry(.platformSSO, "N004"),
        "invalid_header_pfs_provider_info_expired": Entry(.platformSSO, "VSA503"),
        "missing_resource": Entry(.genericAuthorization, "Z130"),
        "malformed_authz_request": Entry(.genericAuthorization, "Z130"),
        "too_many_resources": Entry(.tooManyResources, "P100"),
        // The service provider's and the programmer's configuration.
        "invalid_requestor": Entry(.invalidRequestor, "CFG400"),
        "invalid_integration": Entry(.providerNotAvailable, "CFG404"),
        "unknown_integration": Entry(.providerNotAvailable, "CFG404"),
        "degraded_integration": Entry(.genericAuthentication, "N010"),
        "invalid_configuration_user_metadata_certificate": Entry(.internalError, "CFG500"),
        "invalid_configuration_temporary_access": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_platform": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_platform_id": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_platform_trait": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_platform_category_trait": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_platform_services": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_mvpd_platform": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_mvpd_platform_boarding_status": Entry(.configurationUnavailable, "CFG500"),
        "invalid_configuration_mvpd_platform_profile_exchange": Entry(.configurationUnavailable, "CFG500"),
        // The app's registration.
        "invalid_access_token_service_provider": Entry(.accessTokenError, "R401"),
        "invalid_access_token_client_application": Entry(.accessTokenError, "R401"),
        "invalid_refresh_token": Entry(.accessTokenError, "R401"),
        "invalid_device_info": Entry(.internalError, "SEC412"),
        "invalid_device_id": Entry(.internalError, "SEC412"),
        // Authentication.
        "invalid_authentication_session": Entry(.userNotAuthenticated, "N130"),
        "authenticated_profile_missing": Entry(.userNotAuthenticated, "N000"),
        "authenticated_profile_expired": Entry(.userNotAuthenticated, "N000"),
        "authenticated_profile_invalidated": Entry(.userNotAuthenticated, "N000"),
        "authentication_session_missing": Entry(.userNotAuthenticated, "N130"),
        "authentication_session_expired": Entry(.userNotAuthenticated, "N130"),
        "authentication_session_invalidated": Entry(.userNotAuthenticated, "N130"),
        "authentication_session_issuer_mismatch": Entry(.genericAuthentication, "N130"),
        "identity_not_recognized_by_mvpd": Entry(.userNotAuthenticated, "N000"),
        "preauthorization_authentication_session_missing": Entry(.userNotAuthenticated, "N130"),
        "preauthorization_authentication_session_expired": Entry(.userNotAuthenticated, "N130"),
        // TempPass.
        "temporary_access_duration_limit_exceeded": Entry(.tempPassExpired, "N111"),
        "temporary_access_resources_limit_exceeded": Entry(.tempPassExpired, "N111"),
        // Authorization.
        "authorization_denied_by_mvpd": Entry(.userNotAuthorized, "Z100"),
        "preauthorization_denied_by_mvpd": Entry(.userNotAuthorized, "Z100"),
        "authorization_denied_by_parental_controls": Entry(.userNotAuthorized, "Z100"),
        "authorization_denied_by_hba_policies": Entry(.userNotAuthorized, "Z100"),
        "authorization_denied_by_degradation_rule": Entry(.userNotAuthorized, "Z100"),
        "authorization_denied_by_degradation_configuration_change": Entry(.userNotAuthorized, "Z100"),
        "authorization_denied_by_session_invalidated": Entry(.userNotAuthenticated, "N130"),
        "authorization_not_found": Entry(.genericAuthorization, "Z110"),
        "authorization_expired": Entry(.genericAuthorization, "Z120"),
        // The service provider and the MVPD.
        "internal_server_error": Entry(.internalError, "Z500"),
        "internal_error": Entry(.internalError, "Z500"),
        "network_received_error": Entry(.genericAuthorization, "Z500"),
        "network_connection_timeout": Entry(.genericAuthorization, "Z500"),
        "maximum_execution_time_exceeded": Entry(.genericAuthorization, "Z500"),
        "maximum_attempts_exceeded": Entry(.throttled, "CFG429"),
    ]

    /// The entry of `code`; a code not in the table maps by its family (`authorization_*`, `authentication_*`,
    /// `invalid_configuration_*`, `invalid_header_*`, `temporary_access_*`), else to `INTERNAL_ERROR`.
    public static func entry(for code: String) -> Entry {
        if let entry = table[code] { return entry }
        let families: [(String, Entry)] = [
            ("authorization_denied", Entry(.userNotAuthorized, "Z100")), ("preauthorization_denied", Entry(.userNotAuthorized, "Z100")),
            ("authorization_", Entry(.genericAuthorization)), ("authenticated_profile_", Entry(.userNotAuthenticated, "N000")),
            ("authentication_", Entry(.userNotAuthenticated, "N130")),
            ("invalid_configuration_", Entry(.configurationUnavailable, "CFG500")),
            ("invalid_header_pfs_", Entry(.platformSSO, "APPL_ERROR")), ("temporary_access_", Entry(.tempPassExpired, "N111")),
            ("invalid_access_token_", Entry(.accessTokenError, "R401")),
        ]
        return families.first { code.hasPrefix($0.0) }?.1 ?? Entry(.internalError)
    }
}
