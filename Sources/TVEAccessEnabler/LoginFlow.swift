import Foundation

/// The classic login: `getAuthentication`, the MVPD picked (`setSelectedProvider`) and the authentication that ends
/// it, from the redirect of the login page (iOS) or from the registration code used on a second screen (tvOS). The
/// login in progress is kept in the ``SessionStore``.
struct LoginFlow {
    let configuration: AsyncAccessEnabler.Configuration
    let setup: RequestorSetup
    let session: SessionStore
    let serial: SerialQueue

    /// `getAuthentication(forceAuthn:)`: the stored authentication unless `forceAuthn`, else the MVPDs to pick from.
    func start(forceAuthn: Bool) throws(AccessEnablerError) -> AsyncAccessEnabler.AuthenticationStep {
        if !forceAuthn, let authentication = try session.current().authentication { return .authenticated(authentication) }
        session.pendingLogin = nil
        guard !setup.mvpds.isEmpty else { throw AccessEnablerError(.providerNotAvailable, "no MVPD is offered to this requestor") }
        return .selectProvider(setup.mvpds)
    }

    /// `setSelectedProvider` (the caller holds the serial queue): `nil` cancels the login; an MVPD gets a registration
    /// code and becomes the login in progress.
    nonisolated(nonsending) func selectProvider(_ mvpdID: String?, data: [String: String]) async throws(AccessEnablerError)
        -> AsyncAccessEnabler.LoginStep
    {
        guard let mvpdID else {
            session.pendingLogin = nil
            throw AccessEnablerError(.providerNotSelected, "no provider was selected")
        }
        let (client, mvpd) = try setup.client(for: mvpdID)
        let deviceID = try await session.load().deviceID
        let code: String
        do {
            code = try await client.registrationCode(deviceID: deviceID, mvpd: mvpd.id)
        } catch {
            throw AccessEnablerError(.genericAuthentication, error.message, httpStatus: error.httpStatus)
        }
        session.pendingLogin = (mvpd, code)
        switch configuration.platform {
        case .tvOS:
            return .registrationCode(code)
        case .iOS:
            let url = await client.authenticationURL(
                mvpd: mvpd.id, registrationCode: code, redirectURL: configuration.redirectURL, data: data)
            return .navigate(url, useSVC: setup.options.handleSVC)
        }
    }

    /// Completes the login in progress (the caller holds the serial queue): the service provider's authentication
    /// for the MVPD picked, stored.
    nonisolated(nonsending) func complete() async throws(AccessEnablerError) -> AuthenticationToken {
        guard let (mvpd, _) = session.pendingLogin else { throw AccessEnablerError(.genericAuthentication, "no login is in progress") }
        let (client, _) = try setup.client(for: mvpd.id)
        let deviceID = try await session.load().deviceID
        let token: AuthenticationToken?
        do {
            token = try await client.authenticationToken(deviceID: deviceID)
        } catch {
            throw AccessEnablerError(.genericAuthentication, error.message, httpStatus: error.httpStatus)
        }
        guard let token else {
            throw AccessEnablerError(.genericAuthentication, "the service provider has no authentication for this device")
        }
        // An authentication left from an earlier login with another MVPD is not this login (a stray redirect).
        guard token.mvpd == mvpd.id else {
            throw AccessEnablerError(.genericAuthentication, "the service provider's authentication is not for the MVPD being logged in to")
        }
        session.pendingLogin = nil
        try await session.storeAuthentication(token, mvpd: mvpd)
        return token
    }

    /// tvOS: polls `tokens/authn` (with back-off: the configured interval, doubling up to 10 s) until the user has
    /// logged in on a second screen with the registration code, or the polling timeout passes. The wait holds nothing;
    /// it enters the serial queue only to store what it found, if the login is still the one in progress.
    nonisolated(nonsending) func waitForSecondScreen() async throws(AccessEnablerError) -> AuthenticationToken {
        guard let (mvpd, code) = session.pendingLogin else { throw AccessEnablerError(.genericAuthentication, "no login is in progress") }
        let (client, _) = try setup.client(for: mvpd.id)
        let deviceID = try await session.load().deviceID
        let isCurrent = { session.pendingLogin?.mvpd.id == mvpd.id && session.pendingLogin?.code == code }
        let cancelled = AccessEnablerError(.genericAuthentication, "the wait for the second screen was cancelled")
        var waited = Duration.zero
        var interval = max(configuration.pollingInterval, .milliseconds(1))
        while waited < configuration.pollingTimeout {
            if Task.isCancelled { throw cancelled }
            // Only an authentication with the MVPD picked ends the wait (not one left from an earlier login).
            if let token = try? await client.authenticationToken(deviceID: deviceID), token.mvpd == mvpd.id {
                return try await serial.run(ifCancelled: cancelled) { () async throws(AccessEnablerError) -> AuthenticationToken in
                    guard isCurrent() else { throw AccessEnablerError(.providerNotSelected, "the login was cancelled") }
                    session.pendingLogin = nil
                    try await session.storeAuthentication(token, mvpd: mvpd)
                    return token
                }
            }
            guard isCurrent() else { throw AccessEnablerError(.providerNotSelected, "the login was cancelled") }
            await configuration.sleep(interval)
            waited += interval
            interval = min(interval * 2, .seconds(10))
        }
        throw AccessEnablerError(.genericAuthentication, "the registration code was not used in time")
    }

    /// `getSelectedProvider`: the MVPD of the login in progress, else the MVPD of the current authentication, else nil.
    func selectedProvider() throws(AccessEnablerError) -> MVPD? {
        let entitlements = try session.current()
        return session.pendingLogin?.mvpd ?? (entitlements.authentication != nil ? entitlements.selectedMVPD : nil)
    }

    /// Whether `url` is the configured redirect URL: the same scheme and host (case-insensitively) and path; a query
    /// or fragment may follow.
    static func isRedirect(_ url: URL, _ redirect: String) -> Bool {
        guard let expected = URL(string: redirect) else { return false }
        return url.scheme?.lowercased() == expected.scheme?.lowercased() && url.host?.lowercased() == expected.host?.lowercased()
            && url.path == expected.path && url.user == nil && url.port == expected.port
    }
}
