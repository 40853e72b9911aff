import Foundation

/// What the delegate API (``AccessEnabler``) needs of one of its calls, asked of the core in one call: each report
/// below is made on the actor in one go, so that the callbacks of a delegate call come from one view of the session
/// (not from several calls between which another call may have changed it).
extension AsyncAccessEnabler {
    /// `checkAuthorization` and `getAuthorization`: the authentication the authorization is made under (nil: not
    /// authenticated, nothing was asked), whether a stored authorization stood for the resource (tracking's "cached"),
    /// and the media token or the failure.
    package struct AuthorizationReport: Sendable {
        package let authentication: AuthenticationToken?
        package let cached: Bool
        package let result: Result<String, AccessEnablerError>
    }

    /// `checkAuthorization` in one call: no request when the device is not authenticated.
    package func authorizationReport(resource: String, data: [String: String]) async -> AuthorizationReport {
        guard let authentication = try? checkAuthentication() else {
            let error = AccessEnablerError(.userNotAuthenticated, "the user is not authenticated")
            return AuthorizationReport(authentication: nil, cached: false, result: .failure(error))
        }
        let cached = (try? await metadata(.authorizationTTL(resource: resource)))?.value != nil
        do {
            return AuthorizationReport(
                authentication: authentication, cached: cached, result: .success(try await authorize(resource: resource, data: data)))
        } catch {
            return AuthorizationReport(authentication: authentication, cached: cached, result: .failure(error))
        }
    }

    /// `checkAuthentication` in one call: the silent platform sign-in's statuses, then the stored authentication.
    package func authenticationCheck() async -> (statuses: [AdvancedStatus], token: AuthenticationToken?) {
        let statuses = await silentPlatformSSO().statuses
        return (statuses, try? checkAuthentication())
    }

    /// Where `getAuthentication` leads.
    package enum AuthenticationStart: Sendable {
        /// A valid authentication is stored.
        case stored(AuthenticationToken)
        /// The platform's picker ran (the requestor has platform MVPDs and the app a framework).
        case platform(PlatformSSOOutcome)
        /// The classic provider dialog, with these MVPDs.
        case selectProvider([MVPD])
    }

    /// `getAuthentication` in one call: the stored authentication, else the platform picker when the requestor has
    /// platform MVPDs, else the MVPDs of the classic dialog.
    package func authenticationStart(
        forceAuthn: Bool, providers: [String]?, featured: [String], data: [String: String], presenter: any TVProviderDialogPresenter
    ) async throws(AccessEnablerError) -> AuthenticationStart {
        if case .authenticated(let token) = try startAuthentication(forceAuthn: forceAuthn) { return .stored(token) }
        if configuration.tvProviderAccount != nil, !platformMVPDs.isEmpty {
            return .platform(
                try await authenticateWithPlatformSSO(providers: providers, featured: featured, data: data, presenter: presenter))
        }
        return .selectProvider(mvpds)
    }

    /// `setSelectedProvider` in one call: its step or failure, and the MVPDs as they stand after it (to tell a TempPass,
    /// and to offer the others when a TempPass has run out).
    package func providerSelection(_ mvpdID: String?, data: [String: String]) async -> (
        result: Result<LoginStep, AccessEnablerError>, mvpds: [MVPD]
    ) {
        let result: Result<LoginStep, AccessEnablerError>
        do {
            result = .success(try await selectProvider(mvpdID, data: data))
        } catch {
            result = .failure(error)
        }
        return (result, mvpds)
    }

    /// `logout` in one call: the outcome, and whether pages open in the Safari view controller (`handleSVC`).
    package func logoutReport() async -> (result: Result<LogoutOutcome, AccessEnablerError>, handleSVC: Bool) {
        let result: Result<LogoutOutcome, AccessEnablerError>
        do {
            result = .success(try await logout())
        } catch {
            result = .failure(error)
        }
        return (result, currentOptions.handleSVC)
    }
}
