import Foundation
import TVECrypto

/// The delegate API's mapping from what the async API answered to the callbacks the seeds specify: which callbacks,
/// in which order, with which status and error codes and which tracking data. Pure: no state, no network, no
/// delivery (``AccessEnabler`` calls ``AsyncAccessEnabler``, asks this for the callbacks, and delivers them).
package struct DelegateTranslator: Sendable {
    package let platform: EntitlementPlatform

    package init(platform: EntitlementPlatform) {
        self.platform = platform
    }

    /// How a `setRequestor` ended.
    package enum RequestorOutcome: Sendable, Hashable {
        /// Configured; the silent platform sign-in reported these statuses.
        case configured(statuses: [AdvancedStatus])
        case failed(AccessEnablerError)
    }

    /// How `checkAuthentication`, `getAuthentication`, `setSelectedProvider` or the completion of a login ended.
    package enum AuthenticationOutcome: Sendable, Hashable {
        /// A valid authentication was stored (tracked as cached).
        case stored(AuthenticationToken)
        /// `checkAuthentication` found none (tracked as a cached check).
        case notAuthenticated
        /// A login or the platform's token exchange has just authenticated the user (tracked as not cached).
        case loggedIn(AuthenticationToken)
        /// Completing a login failed (tracked as a check that is not cached).
        case loginFailed(AccessEnablerError)
        /// The classic provider dialog (tracked as a cached check that found no authentication).
        case selectProvider([MVPD])
        /// The platform-SSO path fell back to the classic dialog, with the status that caused it (no tracking).
        case platformFallback(AdvancedStatus?, [MVPD])
        /// The login of the MVPD picked starts: its page, or its registration code.
        case login(AsyncAccessEnabler.LoginStep)
        /// `getAuthentication` or `setSelectedProvider` failed (no tracking).
        case failed(AccessEnablerError)
        /// The TempPass picked has run out (`N111`): the failure, then the provider dialog again without it.
        case tempPassEnded(AccessEnablerError, [MVPD])
    }

    /// How `checkAuthorization` (or the authorization after `getAuthorization`'s login) ended.
    package enum AuthorizationOutcome: Sendable, Hashable {
        /// No authentication (or no requestor): the call ends with no login UI.
        case notAuthenticated
        /// The short media token; `cached` when a stored authorization was used.
        case authorized(String, authentication: AuthenticationToken, cached: Bool)
        case failed(AccessEnablerError, authentication: AuthenticationToken, cached: Bool)
    }

    // MARK: Configuration and authentication

    /// `setRequestorComplete`, after the silent platform sign-in's statuses or the error's.
    package func requestor(_ outcome: RequestorOutcome) -> [DelegateCallback] {
        switch outcome {
        case .configured(let statuses): statuses.map(DelegateCallback.status) + [.setRequestorComplete(AccessEnabler.statusSuccess)]
        case .failed(let error): [.status(Self.status(error, .error)), .setRequestorComplete(AccessEnabler.statusError)]
        }
    }

    /// `checkAuthentication`: the silent platform sign-in's statuses, then the stored authentication or none.
    package func authenticationCheck(statuses: [AdvancedStatus], token: AuthenticationToken?) -> [DelegateCallback] {
        statuses.map(DelegateCallback.status) + authentication(token.map(AuthenticationOutcome.stored) ?? .notAuthenticated)
    }

    package func authentication(_ outcome: AuthenticationOutcome) -> [DelegateCallback] {
        switch outcome {
        case .stored(let token):
            [
                trackAuthentication(token, cached: true),
                .setAuthenticationStatus(AccessEnabler.statusSuccess, errorCode: AccessEnabler.userAuthenticated),
            ]
        case .notAuthenticated:
            [
                trackAuthentication(nil, cached: true),
                .setAuthenticationStatus(AccessEnabler.statusError, errorCode: AccessEnablerError.Code.userNotAuthenticated.rawValue),
            ]
        case .loggedIn(let token):
            [
                trackAuthentication(token, cached: false),
                .setAuthenticationStatus(AccessEnabler.statusSuccess, errorCode: AccessEnabler.userAuthenticated),
            ]
        case .loginFailed(let error):
            [trackAuthentication(nil, cached: false)] + authenticationFailed(error)
        case .selectProvider(let mvpds):
            [trackAuthentication(nil, cached: true), .displayProviderDialog(mvpds)]
        case .platformFallback(let status, let mvpds):
            (status.map { [.status($0)] } ?? []) + [.displayProviderDialog(mvpds)]
        case .login(.navigate(let url, let useSVC)):
            [.navigateToUrl(url, useSVC: useSVC)]
        case .login(.registrationCode(let code)):
            [.status(.registrationCode(code))]
        case .login(.authenticated(let token)):
            authentication(.loggedIn(token))
        case .failed(let error):
            authenticationFailed(error)
        case .tempPassEnded(let error, let mvpds):
            authenticationFailed(error) + [.displayProviderDialog(mvpds)]
        }
    }

    /// `setSelectedProvider` with an MVPD: the `mvpdSelection` tracking data; nothing for a cancel.
    package func providerSelected(_ mvpdID: String?) -> [DelegateCallback] {
        mvpdID.map { [.sendTrackingData([$0] + platformFields, event: .getSelectedProvider)] } ?? []
    }

    /// `handleExternalURL` with the redirect of the logout page: the logout has ended.
    package func logoutPageClosed() -> [DelegateCallback] {
        [.setAuthenticationStatus(AccessEnabler.statusError, errorCode: AccessEnabler.userAuthenticated)]
    }

    /// A failed authentication: `setAuthenticationStatus` carries one of the seeds' three codes; anything more
    /// specific (`CFG400`, `CFG429`, `LS011`, ...) goes to `status` first.
    private func authenticationFailed(_ error: AccessEnablerError) -> [DelegateCallback] {
        let documented: [AccessEnablerError.Code] = [.userNotAuthenticated, .providerNotSelected, .genericAuthentication]
        let code = documented.contains(error.code) ? error.code : .genericAuthentication
        let status = Self.enhancedStatus(error) ?? (documented.contains(error.code) ? nil : Self.status(error, .error))
        return (status.map { [.status($0)] } ?? []) + [.setAuthenticationStatus(AccessEnabler.statusError, errorCode: code.rawValue)]
    }

    /// The advanced status of a REST API v2 Enhanced Error (``EnhancedErrorMapping``), with its code in the details.
    static func enhancedStatus(_ error: AccessEnablerError) -> AdvancedStatus? {
        guard let id = error.advancedStatus else { return nil }
        return AdvancedStatus(id: id, level: .error, message: error.message, details: error.enhancedCode)
    }

    // MARK: Authorization

    /// `setToken` or `tokenRequestFailed`, after the `authorizationDetection` tracking data.
    package func authorization(_ resource: String, _ outcome: AuthorizationOutcome) -> [DelegateCallback] {
        switch outcome {
        case .notAuthenticated:
            let error = AccessEnablerError(.userNotAuthenticated, "the user is not authenticated")
            return [
                trackAuthorization(success: false, authentication: nil, cached: false, error: error),
                .tokenRequestFailed(resource, errorCode: error.code.rawValue, errorDescription: ""),
            ]
        case .authorized(let token, let authentication, let cached):
            return [
                trackAuthorization(success: true, authentication: authentication, cached: cached, error: nil),
                .setToken(token, resource: resource),
            ]
        case .failed(let error, let authentication, let cached):
            // USER_NOT_AUTHENTICATED_ERROR with no description; anything else is USER_NOT_AUTHORIZED_ERROR with the
            // message (the MVPD's words for a denial).
            let unauthenticated = error.code == .userNotAuthenticated
            let code: AccessEnablerError.Code = unauthenticated ? .userNotAuthenticated : .userNotAuthorized
            // A REST API v2 Enhanced Error also goes to `status`, as its advanced status.
            return (Self.enhancedStatus(error).map { [.status($0)] } ?? []) + [
                trackAuthorization(success: false, authentication: authentication, cached: cached, error: error),
                .tokenRequestFailed(resource, errorCode: code.rawValue, errorDescription: unauthenticated ? "" : error.message),
            ]
        }
    }

    /// `preauthorizedResources` (empty when the check failed).
    package func preauthorized(_ resources: [String]) -> [DelegateCallback] { [.preauthorizedResources(resources)] }

    /// `preauthorizedResources`, or, when the check failed, an empty list after the failure's status (none for a device
    /// that is not authenticated: an empty list says it), so that the app can tell a failure from "nothing authorized".
    package func preauthorized(_ result: Result<[String], AccessEnablerError>) -> [DelegateCallback] {
        switch result {
        case .success(let resources): return preauthorized(resources)
        case .failure(let error): return failureStatus(error) + preauthorized([])
        }
    }

    /// The status a failed call reports before its callback: the Enhanced Error's advanced status, else the error's code;
    /// none when the device is not authenticated (the callback says so).
    func failureStatus(_ error: AccessEnablerError) -> [DelegateCallback] {
        guard error.code != .userNotAuthenticated else { return [] }
        return [.status(Self.enhancedStatus(error) ?? Self.status(error, .error))]
    }

    // MARK: Logout, provider, metadata

    /// `logout`: `VSA203` after a platform-SSO login, a warning when the service provider could not be told, then the
    /// logout page (iOS; `handleExternalURL` ends the logout) or `setAuthenticationStatus(0, "")` at once.
    package func logout(_ result: Result<AsyncAccessEnabler.LogoutOutcome, AccessEnablerError>, useSVC: Bool) -> [DelegateCallback] {
        let loggedOut = DelegateCallback.setAuthenticationStatus(AccessEnabler.statusError, errorCode: AccessEnabler.userAuthenticated)
        switch result {
        case .success(let outcome):
            var callbacks: [DelegateCallback] = outcome.platformSSO ? [.status(.signOutInSettings(on: platform))] : []
            if let error = outcome.serverError {
                callbacks.append(
                    .status(AdvancedStatus(id: error.code.rawValue, level: .warning, message: "logged out here; " + error.message)))
            }
            return callbacks + [outcome.page.map { .navigateToUrl($0, useSVC: useSVC) } ?? loggedOut]
        case .failure(let error):
            // The token store could not be written: the tokens in memory are gone all the same.
            return [.status(Self.status(error, .error)), loggedOut]
        }
    }

    /// `selectedProvider`.
    package func selectedProvider(_ mvpd: MVPD?) -> [DelegateCallback] { [.selectedProvider(mvpd)] }

    /// `setMetadataStatus`, the request echoed as the arguments (nil and not encrypted when there is no answer).
    /// `setMetadataStatus`, after the failure's status when the request failed (see ``failureStatus(_:)``).
    package func metadata(_ request: MetadataRequest, result: Result<MetadataAnswer, AccessEnablerError>) -> [DelegateCallback] {
        switch result {
        case .success(let answer): return metadata(request, answer: answer)
        case .failure(let error): return failureStatus(error) + metadata(request, answer: nil)
        }
    }

    package func metadata(_ request: MetadataRequest, answer: MetadataAnswer?) -> [DelegateCallback] {
        let opcode: MetadataOpcode
        switch request {
        case .authenticationTTL: opcode = .authentication
        case .authorizationTTL: opcode = .authorization
        case .deviceID: opcode = .deviceID
        case .userMetadata: opcode = .userMeta
        }
        return [.setMetadataStatus(answer?.value, encrypted: answer?.encrypted ?? false, key: opcode, arguments: request)]
    }

    // MARK: Tracking data

    /// The tracking data's device type, client type and operating system.
    package var platformFields: [String] {
        platform == .iOS ? ["mobile", "ios", "iOS"] : ["unknown", "ios", "tvOS"]
    }

    /// `authenticationDetection`: success, MVPD, hashed user GUID, cached, then the platform fields (7 values).
    private func trackAuthentication(_ token: AuthenticationToken?, cached: Bool) -> DelegateCallback {
        let data = [
            token != nil ? "true" : "false", token?.mvpd ?? "", token.map { Self.hashedGUID($0.userID) } ?? "", cached ? "true" : "false",
        ]
        return .sendTrackingData(data + platformFields, event: .authentication)
    }

    /// `authorizationDetection`: success, MVPD, hashed user GUID, cached, error code, error message, then the
    /// platform fields (9 values).
    private func trackAuthorization(success: Bool, authentication: AuthenticationToken?, cached: Bool, error: AccessEnablerError?)
        -> DelegateCallback
    {
        let data = [
            success ? "true" : "false", authentication?.mvpd ?? "", authentication.map { Self.hashedGUID($0.userID) } ?? "",
            cached ? "true" : "false", error?.code.rawValue ?? "", error?.message ?? "",
        ]
        return .sendTrackingData(data + platformFields, event: .authorization)
    }

    /// The hashed user GUID of tracking data: MD5 of the user ID, in lowercase hex, as the seeds say (an identifier
    /// that must match what other AccessEnabler clients report, not a protection). Empty when the user ID is unknown (a
    /// REST API v2 profile whose `userID` is encrypted and no metadata key is configured: the MD5 of nothing would be the
    /// same for every user) or MD5 is unavailable.
    package static func hashedGUID(_ userID: String) -> String {
        guard !userID.isEmpty else { return "" }
        return ((try? InsecureDigest.md5(Array(userID.utf8))) ?? []).map { String(format: "%02x", $0) }.joined()
    }

    /// An error as an advanced status.
    private static func status(_ error: AccessEnablerError, _ level: AdvancedStatus.Level) -> AdvancedStatus {
        AdvancedStatus(id: error.code.rawValue, level: level, message: error.message)
    }
}
