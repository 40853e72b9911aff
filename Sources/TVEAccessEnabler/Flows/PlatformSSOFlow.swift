/// Platform single sign-on (the Apple SSO cookbook): the silent exchange at startup, and `getAuthentication` through
/// the platform's provider picker.
struct PlatformSSOFlow {
    let configuration: AsyncAccessEnabler.Configuration
    let setup: RequestorSetup
    let session: SessionStore
    let login: LoginFlow
    let serial: SerialQueue

    private func isSupportedForSSO(_ mvpd: MVPD) -> Bool { mvpd.enablePlatformServices && mvpd.boardingStatus == "SUPPORTED" }

    /// The silent exchange (the caller holds the serial queue; nothing here waits for the user): when the app may
    /// read the TV-provider account, a provider is signed in, boarded and offered, its SAML response is exchanged for
    /// an authentication, with no UI.
    nonisolated(nonsending) func silent() async -> (token: AuthenticationToken?, statuses: [AdvancedStatus]) {
        guard let account = configuration.tvProviderAccount, !setup.platformMVPDs.isEmpty else { return (nil, []) }
        // An authenticated user needs no exchange, and hears nothing about the platform's permission.
        if (try? await session.load().authentication) != nil { return (nil, []) }
        switch await account.accessStatus(prompt: false) {
        case .denied: return (nil, [.permissionDenied])
        case .undetermined: return (nil, [.permissionUndetermined])
        case .failed(let details): return (nil, [.frameworkError(details)])
        case .granted: break
        }
        switch await account.accountMetadata(TVProviderMetadataRequest(), presenter: SilentPresenter()) {
        case .account(let providerID, _):
            guard let mvpd = setup.mvpds.first(where: { $0.platformMappingID == providerID }), isSupportedForSSO(mvpd) else {
                return (nil, [])
            }
            do {
                return (try await exchange(mvpd, account: account), [])
            } catch {
                return (nil, [.frameworkError(error.message)])
            }
        case .failed(let message): return (nil, [.frameworkError(message)])
        case .notSignedIn, .otherProvider, .cancelled: return (nil, [])
        }
    }

    /// `getAuthentication` through the platform picker. The caller does not hold the serial queue: the permission
    /// prompt and the picker wait for the user, so they run outside it, and the queue is entered only to act on the
    /// answer (the exchange, or the login of a picker-only provider).
    nonisolated(nonsending) func authenticate(
        providers: [String]?, featured: [String], data: [String: String], presenter: any TVProviderDialogPresenter
    ) async throws(AccessEnablerError) -> AsyncAccessEnabler.PlatformSSOOutcome {
        guard let account = configuration.tvProviderAccount, !setup.platformMVPDs.isEmpty else { return .fallback(nil, setup.mvpds) }
        try await serial.run(ifCancelled: .cancelledBeforeItsTurn) { () async throws(AccessEnablerError) in session.pendingLogin = nil }
        switch await account.accessStatus(prompt: true) {
        case .denied: return .fallback(.permissionDenied, setup.mvpds)
        case .undetermined: return .fallback(.permissionUndetermined, setup.mvpds)
        case .failed(let details): return .fallback(.metadataFailed(details), setup.mvpds)
        case .granted: break
        }
        // The filter keeps its order and drops what the picker cannot show.
        let platformMVPDs = setup.platformMVPDs
        let candidates = (providers ?? platformMVPDs.map(\.id)).compactMap { id in platformMVPDs.first { $0.id == id } }
        let featuredIDs = featured.compactMap { id in candidates.first { $0.id == id }?.platformMappingID }
        let request = TVProviderMetadataRequest(
            providerIdentifiers: candidates.compactMap(\.platformMappingID),
            featuredProviderIdentifiers: featuredIDs, isInterruptionAllowed: true)
        switch await account.accountMetadata(request, presenter: presenter) {
        case .otherProvider: return .fallback(.otherProvider, setup.mvpds)
        case .cancelled, .notSignedIn: return .fallback(.pickerCancelled, setup.mvpds)
        case .failed(let message): return .fallback(.metadataFailed(message), setup.mvpds)
        case .account(let providerID, _):
            guard let mvpd = candidates.first(where: { $0.platformMappingID == providerID }) else {
                return .fallback(.unsupportedProvider, setup.mvpds)
            }
            // Boarded but with platform services off: not supported here (N004), back to the classic picker, as the
            // SSO cookbook says.
            if mvpd.boardingStatus == "SUPPORTED", !mvpd.enablePlatformServices { return .fallback(.unsupportedProvider, setup.mvpds) }
            guard isSupportedForSSO(mvpd) else {
                // Picker-only: its classic login, with the data given to getAuthentication.
                let step = try await serial.run(ifCancelled: .cancelledBeforeItsTurn) { () async throws(AccessEnablerError) in
                    try await login.selectProvider(mvpd.id, data: data)
                }
                return .login(mvpd, step)
            }
            // A failed exchange falls back to the classic flow, as a failed metadata request does.
            do {
                return .authenticated(
                    try await serial.run(ifCancelled: .cancelledBeforeItsTurn) { () async throws(AccessEnablerError) in
                        try await exchange(mvpd, account: account)
                    })
            } catch {
                return .fallback(.metadataFailed(error.message), setup.mvpds)
            }
        }
    }

    /// The token exchange (the caller holds the serial queue): the service provider's request for the platform (v1: a
    /// profile request; v2: `sessions/sso/Apple`), the framework's SAML response for it, exchanged for an
    /// authentication (v1: `POST tokens/authn`; v2: `profiles/sso/Apple`), stored.
    private nonisolated(nonsending) func exchange(_ mvpd: MVPD, account: any TVProviderAccountProvider) async throws(AccessEnablerError)
        -> AuthenticationToken
    {
        let (client, _) = try setup.client(for: mvpd.id)
        let deviceID = try await session.load().deviceID
        guard let providerID = mvpd.platformMappingID else {
            throw AccessEnablerError(.platformSSO, "the MVPD has no platform identifier")
        }
        let exchange = PlatformExchange(
            deviceID: deviceID, mvpd: mvpd, redirectURL: configuration.redirectURL, platform: configuration.platform,
            providerID: providerID, providerExpires: nil
        ) { payload, attributes async throws(AccessEnablerError) -> String in
            let request = TVProviderMetadataRequest(
                providerIdentifiers: [providerID], attributeNames: attributes, verificationToken: payload)
            guard case .account(_, let samlResponse?) = await account.accountMetadata(request, presenter: SilentPresenter()) else {
                throw AccessEnablerError(.platformSSO, "the single-sign-on framework gave no SAML response")
            }
            return samlResponse
        }
        let token = try await client.platformExchange(exchange)
        try await session.storeAuthentication(token, mvpd: mvpd)
        return token
    }
}

/// A presenter for requests that must not show UI.
private struct SilentPresenter: TVProviderDialogPresenter {
    func present(_ dialog: TVProviderDialog) async {}
    func dismiss(_ dialog: TVProviderDialog) async {}
}
