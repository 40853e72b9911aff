/// `logout`: the local tokens first, then the server-side session.
struct LogoutFlow {
    let configuration: AsyncAccessEnabler.Configuration
    let setup: RequestorSetup
    let session: SessionStore

    /// The caller holds the serial queue. Clears every local token and the login in progress, then ends the
    /// server-side session; a service provider that cannot be told is reported in the outcome, and does not undo the
    /// local logout. Throws only when the token store cannot be written (or no requestor is set).
    nonisolated(nonsending) func logout() async throws(AccessEnablerError) -> AsyncAccessEnabler.LogoutOutcome {
        var entitlements = try await session.load()
        let authentication = entitlements.authentication
        entitlements.forgetAuthentication()
        entitlements.selectedMVPD = nil
        session.pendingLogin = nil
        try await session.save(entitlements)
        guard let authentication, let (client, _) = try? setup.client(for: authentication.mvpd) else {
            return .init(page: nil, platformSSO: authentication?.platformSSO ?? false, serverError: nil)
        }
        let step = await client.logout(
            deviceID: entitlements.deviceID, mvpd: authentication.mvpd, redirectURL: configuration.redirectURL,
            platform: configuration.platform)
        if step.error != nil {
            // Owed to the service provider: setRequestor ends it (and adopts no profile until then).
            entitlements.pendingLogout = authentication.mvpd
            try? await session.save(entitlements)
        }
        return .init(page: step.page, platformSSO: authentication.platformSSO || step.partnerLogout, serverError: step.error)
    }
}
