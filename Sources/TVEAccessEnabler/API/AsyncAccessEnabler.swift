import Foundation
import TVECrypto

/// The flow layer's async API: one actor per application, talking REST API v2 (or v1, ``Configuration/api``) to the
/// service providers.
/// ``AccessEnabler`` is the delegate API of the seeds, an adapter over this.
///
/// A façade over small types with one job each: `RequestorSetup` (configuration, service providers, options),
/// `SessionStore` (the stored tokens and the login in progress), and the login, authorization, logout, metadata and
/// platform-SSO flows. The calls that change the stored tokens run one at a time, in order, through a
/// `SerialQueue`; none of them holds it while waiting for the user.
public actor AsyncAccessEnabler {
    /// What the enabler was made with; it does not change, and is read without awaiting the actor.
    public nonisolated let configuration: Configuration
    private let serial: SerialQueue
    private let session: SessionStore
    private let setup: RequestorSetup
    private let login: LoginFlow
    private let authorization: AuthorizationFlow
    private let logoutFlow: LogoutFlow
    private let metadataFlow: MetadataFlow
    private let platformSSO: PlatformSSOFlow

    /// `init:softwareStatement` (SDK 3.x): Dynamic Client Registration with the software statement.
    public init(softwareStatement: String, redirectURI: String? = nil, configuration: Configuration = Configuration()) {
        self.init(identity: .softwareStatement(softwareStatement, redirectURI: redirectURI), configuration: configuration)
    }

    /// The deprecated `init`: the app identifies itself later, with `setRequestor(_:signedRequestorID:...)`.
    public init(configuration: Configuration = Configuration()) {
        self.init(identity: nil, configuration: configuration)
    }

    private init(identity: ClientIdentity?, configuration: Configuration) {
        self.configuration = configuration
        let serial = SerialQueue()
        let session = SessionStore(store: configuration.tokenStore, clock: configuration.clock)
        let setup = RequestorSetup(configuration: configuration, identity: identity, session: session)
        let login = LoginFlow(configuration: configuration, setup: setup, session: session, serial: serial)
        self.serial = serial
        self.session = session
        self.setup = setup
        self.login = login
        authorization = AuthorizationFlow(setup: setup, session: session)
        logoutFlow = LogoutFlow(configuration: configuration, setup: setup, session: session)
        metadataFlow = MetadataFlow(configuration: configuration, setup: setup, session: session)
        platformSSO = PlatformSSOFlow(configuration: configuration, setup: setup, session: session, login: login, serial: serial)
    }

    /// Runs `operation` when the calls before it have finished (see `SerialQueue`).
    private func exclusive<Value>(_ operation: nonisolated(nonsending) () async throws(AccessEnablerError) -> Value)
        async throws(AccessEnablerError) -> Value
    {
        try await serial.run(ifCancelled: .cancelledBeforeItsTurn, operation)
    }

    // MARK: Options and requestor

    /// `setOptions`: applies to every later call.
    public func setOptions(_ options: Options) async { await setup.setOptions(options) }

    /// The options of the last ``setOptions(_:)`` (all unset before the first).
    public var currentOptions: Options { setup.options }

    /// The merged MVPD list of the last `setRequestor`.
    public var mvpds: [MVPD] { setup.mvpds }

    /// `setRequestor(_:serviceProviders:)`: asks every service provider for the requestor's configuration at once and
    /// merges the MVPD lists; an MVPD stays with the first provider that answered with it, and every later call
    /// about it goes there. Succeeds when at least one provider answered.
    @discardableResult
    public func setRequestor(_ requestorID: String, serviceProviders: [URL]? = nil) async throws(AccessEnablerError) -> [MVPD] {
        guard let identity = setup.identity else {
            throw AccessEnablerError(
                .notRegistered, "no software statement: use init(softwareStatement:) or setRequestor(_:signedRequestorID:)")
        }
        return try await configure(requestorID, identity: identity, serviceProviders: serviceProviders)
    }

    /// The deprecated `setRequestor:signedRequestorID:[serviceProviders:]` (SDK 1.x/2.x).
    @discardableResult
    public func setRequestor(_ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil)
        async throws(AccessEnablerError) -> [MVPD]
    {
        try requireV1(for: "setRequestor(_:signedRequestorID:)")
        setup.identity = .signedRequestorID(signedRequestorID)
        return try await configure(requestorID, identity: .signedRequestorID(signedRequestorID), serviceProviders: serviceProviders)
    }

    /// The deprecated tvOS `setRequestor:signedRequestorID:[serviceProviders:]secret:publicKey:`: every call carries the
    /// clientless HMAC-SHA1 header made with `secret`.
    @discardableResult
    public func setRequestor(
        _ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil, secret: SecureBytes,
        publicKey: String
    ) async throws(AccessEnablerError) -> [MVPD] {
        try requireV1(for: "setRequestor(_:signedRequestorID:secret:publicKey:)")
        setup.identity = .clientless(publicKey: publicKey, secret: secret)
        return try await configure(
            requestorID, identity: .clientless(publicKey: publicKey, secret: secret), serviceProviders: serviceProviders)
    }

    /// The deprecated identities speak REST API v1 only: with ``Configuration/api`` `.v2` they fail at once, with an
    /// error that names the fix, instead of moving the app to v1 without a word (v1 stops working at the end of 2026).
    private func requireV1(for call: String) throws(AccessEnablerError) {
        guard configuration.api == .v1 else {
            throw AccessEnablerError(
                .notRegistered,
                "\(call) needs REST API v1, which REST API v2 replaces: v2 admits only Dynamic Client Registration. "
                    + "Use init(softwareStatement:) with the software statement from Adobe's TVE Dashboard, "
                    + "or set Configuration.api = .v1 until v1 ends (2026-12-31)")
        }
    }

    private func configure(_ requestorID: String, identity: ClientIdentity, serviceProviders: [URL]?) async throws(AccessEnablerError)
        -> [MVPD]
    {
        try await exclusive { () async throws(AccessEnablerError) in
            try await setup.configure(requestorID, identity: identity, serviceProviders: serviceProviders)
        }
    }

    /// Makes `requestorID` current from the token store alone, with no request: `checkAuthentication`,
    /// ``selectedProvider()``, the TTLs and the device ID then answer from what is stored, as they would after a
    /// `setRequestor`. Calls that need the service provider (a login, an authorization, user metadata, a logout) need
    /// `setRequestor` first. For an app that starts offline, and for tools that show the stored state
    /// (`tvekit client status`).
    /// - Throws: `CFG400` for an empty or over-long requestor ID; `LS011` when the token store cannot be read.
    public func restoreRequestor(_ requestorID: String) async throws(AccessEnablerError) {
        try await exclusive { () async throws(AccessEnablerError) in try await setup.restore(requestorID) }
    }

    // MARK: Authentication

    /// The device ID the flow layer keeps (`METADATA_DEVICE_ID`): REST API v1 sends it as it is; over REST API v2 Adobe
    /// sees only its SHA-256 fingerprint (`AP-Device-Identifier`).
    public func deviceID() throws(AccessEnablerError) -> String { try session.current().deviceID }

    /// `checkAuthentication`: the local token store only, no network. Throws `USER_NOT_AUTHENTICATED_ERROR` when there
    /// is no valid authentication.
    public func checkAuthentication() throws(AccessEnablerError) -> AuthenticationToken {
        guard let authentication = try session.current().authentication else {
            throw AccessEnablerError(.userNotAuthenticated, "no valid authentication token")
        }
        return authentication
    }

    /// `getAuthentication(forceAuthn:)`: the stored authentication unless `forceAuthn`, else the MVPDs to pick from.
    public func startAuthentication(forceAuthn: Bool = false) throws(AccessEnablerError) -> AuthenticationStep {
        try login.start(forceAuthn: forceAuthn)
    }

    /// `setSelectedProvider`: `nil` cancels (`PROVIDER_NOT_SELECTED_ERROR`, state reset); an MVPD starts its login.
    public func selectProvider(_ mvpdID: String?, data: [String: String] = [:]) async throws(AccessEnablerError) -> LoginStep {
        try await exclusive { () async throws(AccessEnablerError) in try await login.selectProvider(mvpdID, data: data) }
    }

    /// `handleExternalURL`: the login page reached the redirect URL; fetch and store the authentication token.
    public func handleExternalURL(_ url: URL) async throws(AccessEnablerError) -> AuthenticationToken {
        guard configuration.isRedirect(url) else {
            throw AccessEnablerError(.genericAuthentication, "the URL is not the redirect URL")
        }
        return try await completeAuthentication()
    }

    /// The deprecated `getAuthenticationToken`: the same as ``handleExternalURL(_:)`` without the URL.
    public func completeAuthentication() async throws(AccessEnablerError) -> AuthenticationToken {
        try await exclusive { () async throws(AccessEnablerError) in try await login.complete() }
    }

    /// tvOS: polls until the user has logged in on a second screen with the code, or the wait ends: over REST API v2
    /// `profiles/code/{code}` every 3–5 s (the configured interval, clamped) until the session's `notAfter` or the
    /// polling timeout; over v1 `tokens/authn`, the configured interval doubling up to 10 s, until the polling timeout.
    public func waitForSecondScreen() async throws(AccessEnablerError) -> AuthenticationToken {
        try await login.waitForSecondScreen()
    }

    /// The login page of the login in progress (nil when there is none): what a second screen opens for the code on
    /// tvOS (REST API v2: the session's `authenticate` URL), the page an iOS app is sent to.
    public func loginPage() -> URL? { session.pendingLogin?.page }

    /// `getSelectedProvider`: the MVPD of the login in progress, else the MVPD of the current authentication, else nil.
    public func selectedProvider() throws(AccessEnablerError) -> MVPD? { try login.selectedProvider() }

    // MARK: Authorization

    /// `checkAuthorization`: the device must be authenticated (else `USER_NOT_AUTHENTICATED_ERROR`, no login UI);
    /// authorizes the resource unless a valid authorization is stored, then returns a fresh short media token.
    public func authorize(resource: String, data: [String: String] = [:]) async throws(AccessEnablerError) -> String {
        try await exclusive { () async throws(AccessEnablerError) in try await authorization.authorize(resource: resource, data: data) }
    }

    /// `checkPreauthorizedResources(_:cache:)`: the resources the user may watch. With `cache`, resources with a
    /// stored valid authorization are answered without asking the service provider.
    public func preauthorize(_ resources: [String], cache: Bool = true) async throws(AccessEnablerError) -> [String] {
        try await authorization.preauthorize(resources, cache: cache)
    }

    /// `checkPreauthorizedResources` with each resource's decision: authorized, or denied with the MVPD's message when
    /// it gave one (the seeds' callback carries the authorized resources only).
    public func preauthorizationDecisions(_ resources: [String], cache: Bool = true) async throws(AccessEnablerError)
        -> [PreauthorizationDecision]
    {
        try await authorization.decisions(resources, cache: cache)
    }

    // MARK: Logout and metadata

    /// `logout`: clears every local token, then ends the server-side session. A failure to reach the service
    /// provider does not undo the local logout: it is reported in ``LogoutOutcome/serverError``, and the logout page
    /// is still returned. Throws only when the token store cannot be written.
    public func logout() async throws(AccessEnablerError) -> LogoutOutcome {
        try await exclusive { () async throws(AccessEnablerError) in try await logoutFlow.logout() }
    }

    /// `getMetadata`.
    public func metadata(_ request: MetadataRequest) async throws(AccessEnablerError) -> MetadataAnswer {
        try await metadataFlow.metadata(request)
    }

    // MARK: Platform single sign-on (the Apple SSO cookbook)

    /// The MVPDs the platform picker may show: boarded (`SUPPORTED`) or picker-only (`PICKER`), with a platform ID.
    /// Without a boarding status an MVPD does not take part in platform single sign-on.
    public var platformMVPDs: [MVPD] { setup.platformMVPDs }

    /// The silent exchange of `setRequestor` and `checkAuthentication`: when the app may read the TV-provider account,
    /// a provider is signed in, boarded and offered, its SAML response is exchanged for an authentication, with no
    /// UI. Returns the authentication (when one was made) and the advanced statuses to report (`VSA403`, `VSA404`,
    /// `APPL_ERROR`).
    public func silentPlatformSSO() async -> (token: AuthenticationToken?, statuses: [AdvancedStatus]) {
        (try? await exclusive { () async throws(AccessEnablerError) in await platformSSO.silent() }) ?? (nil, [])
    }

    /// `getAuthentication` (with the platform's `TV_PROVIDERS` / `FEATURED_TV_PROVIDERS` filter, MVPD IDs) when the
    /// requestor has platform MVPDs: the platform picker, then the exchange, a silent provider selection, or the
    /// classic flow with `N003`, `N004`, `N005`, `VSA403`, `VSA404` or `VSA503`. The picker is on screen while other
    /// calls run: it holds nothing.
    /// `data` (`getAuthentication:withData:`) goes with the login of a picker-only provider.
    public func authenticateWithPlatformSSO(
        providers: [String]? = nil, featured: [String] = [], data: [String: String] = [:],
        presenter: any TVProviderDialogPresenter
    ) async throws(AccessEnablerError) -> PlatformSSOOutcome {
        try await platformSSO.authenticate(providers: providers, featured: featured, data: data, presenter: presenter)
    }
}

extension AccessEnablerError {
    /// A call whose task was cancelled while it waited for the calls before it: it did not run.
    static let cancelledBeforeItsTurn = AccessEnablerError(.internalError, "the call was cancelled before it started")
}
