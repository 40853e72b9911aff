import Foundation
import TVEConcurrency
import TVECrypto

/// The AccessEnabler of the seeds: every method of `AccessEnabler.h`, answering through ``EntitlementDelegate`` and
/// ``EntitlementStatus`` callbacks, over ``AsyncAccessEnabler``.
///
/// Calls never block: each becomes a job run in order, so that calls made before `setRequestorComplete` wait for
/// the requestor and then run in the order they were made (the cookbook's queuing). Callbacks are delivered by the
/// `deliver` closure (a serial queue by default). The tvOS wait for a second screen runs beside the queue.
///
/// Each job calls the async API and hands what it answered to `DelegateTranslator`, which decides the callbacks and
/// their tracking data; this class only runs the jobs, delivers the callbacks and remembers what the delegate API
/// adds to the async one (the authorization a `getAuthorization` waits to make, the logout page on screen, the data of
/// `getAuthentication:withData:`, the wait for the second screen).
public final class AccessEnabler: Sendable {
    /// `ACCESS_ENABLER_STATUS_SUCCESS`
    public static let statusSuccess = 1
    /// `ACCESS_ENABLER_STATUS_ERROR`
    public static let statusError = 0
    /// `USER_AUTHENTICATED`: the error code of a successful authentication.
    public static let userAuthenticated = ""

    /// The async API underneath.
    public let core: AsyncAccessEnabler
    let translator: DelegateTranslator
    private let deliver: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    private let worker: Task<Void, Never>

    struct State {
        weak var delegate: (any EntitlementDelegate)?
        weak var statusDelegate: (any EntitlementStatus)?
        /// getAuthorization started a login: authorize this resource once it succeeds.
        var pendingAuthorization: (resource: String, data: [String: String])?
        /// logout sent the app to the logout page: handleExternalURL ends the logout.
        var loggingOut = false
        /// `withData` of the last getAuthentication, sent with the login it starts (and only that one).
        var loginData: [String: String] = [:]
        /// The kinds of data REST API v2 has no place for that the app has been told of (once each).
        var unsentNoted: Set<String> = []
    }

    let state = Locked(State())
    let polling = SecondScreenWait()

    /// - Parameters:
    ///   - core: the async API (``AsyncAccessEnabler/init(softwareStatement:redirectURI:configuration:)`` for `init:softwareStatement`,
    ///     ``AsyncAccessEnabler/init(configuration:)`` for the deprecated `init`).
    ///   - deliver: runs each callback; a serial dispatch queue by default.
    public init(core: AsyncAccessEnabler, deliver: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil) {
        self.core = core
        translator = DelegateTranslator(platform: core.configuration.platform)
        let queue = DispatchQueue(label: "tvekit.accessenabler.callbacks")
        self.deliver = deliver ?? { work in queue.async(execute: work) }
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        jobs = continuation
        worker = Task {
            for await job in stream { await job() }
        }
    }

    /// `init:softwareStatement`.
    public convenience init(
        softwareStatement: String, configuration: AsyncAccessEnabler.Configuration = .init(),
        deliver: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        self.init(core: AsyncAccessEnabler(softwareStatement: softwareStatement, configuration: configuration), deliver: deliver)
    }

    deinit {
        jobs.finish()
        worker.cancel()
        polling.stop()
    }

    /// The delegate (held weakly).
    public var delegate: (any EntitlementDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The receiver of `status` (held weakly).
    public var statusDelegate: (any EntitlementStatus)? {
        get { state.withLock { $0.statusDelegate } }
        set { state.withLock { $0.statusDelegate = newValue } }
    }

    // MARK: Plumbing

    func enqueue(_ job: @escaping @Sendable () async -> Void) { jobs.yield(job) }

    /// Delivers `callbacks` in order, each to the receiver set now (none when it is gone).
    func send(_ callbacks: [DelegateCallback]) {
        let (delegate, receiver) = state.withLock { ($0.delegate, $0.statusDelegate) }
        for callback in callbacks {
            if case .status = callback { guard receiver != nil else { continue } } else { guard delegate != nil else { continue } }
            deliver { callback.send(to: delegate, status: receiver) }
        }
    }

    /// A call of the async API as a result.
    func result<Value>(_ call: () async throws(AccessEnablerError) -> Value) async -> Result<Value, AccessEnablerError> {
        do {
            return .success(try await call())
        } catch {
            return .failure(error)
        }
    }

    // MARK: Configuration

    /// `setOptions:`.
    public func setOptions(_ options: AsyncAccessEnabler.Options) {
        enqueue {
            await self.core.setOptions(options)
            if options.applicationProfile != nil { self.noteUnsent("the applicationProfile option", keys: ["applicationProfile"]) }
        }
    }

    /// REST API v2 has no place for `what`: the app hears it once, in a `DATA_NOT_SENT` warning that names the keys, never
    /// the values (REST API v1 sends them all).
    func noteUnsent(_ what: String, keys: some Collection<String>) {
        guard core.configuration.api == .v2, !keys.isEmpty, state.withLock({ $0.unsentNoted.insert(what).inserted }) else { return }
        send([.status(.dataNotSent(what, keys: keys.sorted()))])
    }

    /// `setRequestor:serviceProviders:` (and `setRequestor:` with Adobe's default provider).
    public func setRequestor(_ requestorID: String, serviceProviders: [URL]? = nil) {
        enqueue {
            await self.finishSetRequestor { () async throws(AccessEnablerError) in
                try await self.core.setRequestor(requestorID, serviceProviders: serviceProviders)
            }
        }
    }

    /// The deprecated `setRequestor:signedRequestorID:[serviceProviders:]`.
    public func setRequestor(_ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil) {
        enqueue {
            await self.finishSetRequestor { () async throws(AccessEnablerError) in
                try await self.core.setRequestor(requestorID, signedRequestorID: signedRequestorID, serviceProviders: serviceProviders)
            }
        }
    }

    /// The deprecated tvOS `setRequestor:signedRequestorID:[serviceProviders:]secret:publicKey:`.
    public func setRequestor(
        _ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil, secret: String, publicKey: String
    ) {
        enqueue {
            await self.finishSetRequestor { () async throws(AccessEnablerError) in
                try await self.core.setRequestor(
                    requestorID, signedRequestorID: signedRequestorID, serviceProviders: serviceProviders,
                    secret: SecureBytes(utf8: secret), publicKey: publicKey)
            }
        }
    }

    /// Once configured, the platform account may authenticate silently (no callback but status codes).
    private func finishSetRequestor(_ configure: () async throws(AccessEnablerError) -> [MVPD]) async {
        let outcome: DelegateTranslator.RequestorOutcome
        switch await result(configure) {
        case .success: outcome = .configured(statuses: await core.silentPlatformSSO().statuses)
        case .failure(let error): outcome = .failed(error)
        }
        send(translator.requestor(outcome))
    }

    // MARK: Authentication

    /// `checkAuthentication`: the local token store (and the platform account's silent sign-in).
    public func checkAuthentication() {
        enqueue {
            let (statuses, token) = await self.core.authenticationCheck()
            self.send(self.translator.authenticationCheck(statuses: statuses, token: token))
        }
    }

    /// `getAuthentication`, `getAuthentication:withData:` (`data` goes with the login: v1's `generic_data`, or a
    /// promotional TempPass's `AP-TempPass-Identity` on REST API v2).
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String] = [:]) {
        enqueue { await self.runAuthentication(forceAuthn: forceAuthn, providers: nil, featured: [], data: data) }
    }

    /// `getAuthentication:filter` / `getAuthentication:withData:andFilter:` with the dictionary filter: `TV_PROVIDERS`
    /// (MVPD IDs, in order) and `FEATURED_TV_PROVIDERS` (a subset). Ignored when no MVPD supports platform SSO.
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String] = [:], filter: [String: [String]]) {
        let featured = filter["FEATURED_TV_PROVIDERS"] ?? []
        let providers = filter["TV_PROVIDERS"] ?? []
        enqueue {
            await self.runAuthentication(
                forceAuthn: forceAuthn, providers: providers.isEmpty ? nil : providers,
                featured: featured.filter { providers.contains($0) }, data: data)
        }
    }

    /// The legacy array filter (`getAuthentication:` with an NSArray): the MVPD IDs the platform picker shows.
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String] = [:], filter: [String]) {
        enqueue { await self.runAuthentication(forceAuthn: forceAuthn, providers: filter, featured: [], data: data) }
    }

    /// The deprecated `getAuthenticationToken`: completes a login without the URL.
    public func getAuthenticationToken() {
        enqueue {
            await self.finishLogin(
                await self.result { () async throws(AccessEnablerError) in try await self.core.completeAuthentication() })
        }
    }

    private func runAuthentication(forceAuthn: Bool, providers: [String]?, featured: [String], data: [String: String]) async {
        polling.stop()
        state.withLock {
            $0.loggingOut = false
            $0.loginData = data
        }
        await conclude(await authenticate(forceAuthn: forceAuthn, providers: providers, featured: featured, data: data))
    }

    /// `getAuthentication` on the async API: the stored authentication, else the platform picker when the requestor
    /// has platform MVPDs, else the classic provider dialog.
    private func authenticate(forceAuthn: Bool, providers: [String]?, featured: [String], data: [String: String]) async
        -> DelegateTranslator.AuthenticationOutcome
    {
        do {
            switch try await core.authenticationStart(
                forceAuthn: forceAuthn, providers: providers, featured: featured, data: data, presenter: DelegatePresenter(enabler: self))
            {
            case .stored(let token): return .stored(token)
            case .selectProvider(let mvpds): return .selectProvider(mvpds)
            case .platform(.authenticated(let token)): return .loggedIn(token)
            case .platform(.fallback(let status, let mvpds)): return .platformFallback(status, mvpds)
            case .platform(.login(let mvpd, let step)):
                // The platform picker chose the provider: the same mvpdSelection tracking as setSelectedProvider.
                send(translator.providerSelected(mvpd.id))
                if !mvpd.isTempPass { noteUnsent("the data of getAuthentication:withData:", keys: data.keys) }
                return .login(step)
            }
        } catch {
            return .failed(error)
        }
    }

    /// Delivers what an authentication came to and acts on it: a success runs the authorization `getAuthorization`
    /// waits for, a failure drops it; a registration code starts the wait for the second screen.
    private func conclude(_ outcome: DelegateTranslator.AuthenticationOutcome) async {
        switch outcome {
        case .failed, .loginFailed, .tempPassEnded: state.withLock { $0.pendingAuthorization = nil }
        default: break
        }
        send(translator.authentication(outcome))
        switch outcome {
        case .stored, .loggedIn, .login(.authenticated): await authorizePending()
        case .login(.registrationCode): startPolling()
        default: break
        }
    }

    /// `setSelectedProvider:` — nil cancels the login (`PROVIDER_NOT_SELECTED_ERROR`).
    public func setSelectedProvider(_ mvpdID: String?) {
        enqueue {
            self.polling.stop()
            let data = self.state.withLock { state -> [String: String] in
                state.loggingOut = false
                defer { state.loginData = [:] }
                return state.loginData
            }
            self.send(self.translator.providerSelected(mvpdID))
            let (result, mvpds) = await self.core.providerSelection(mvpdID, data: data)
            // REST API v2 sends a login's data only as a TempPass's identity (AP-TempPass-Identity).
            if mvpdID != nil, !mvpds.contains(where: { $0.id == mvpdID && $0.isTempPass }) {
                self.noteUnsent("the data of getAuthentication:withData:", keys: data.keys)
            }
            switch result {
            case .success(let step): await self.conclude(.login(step))
            case .failure(let error) where error.code == .tempPassExpired:
                await self.conclude(.tempPassEnded(error, mvpds.filter { $0.id != mvpdID }))
            case .failure(let error): await self.conclude(.failed(error))
            }
        }
    }

    /// tvOS: the wait for the second screen runs beside the job queue and holds the enabler weakly (dropping it ends
    /// the wait). Its answer is handled from the queue, after the calls made meanwhile; a logout or another login made
    /// since has ended the wait, and then nothing is reported.
    private func startPolling() {
        polling.start(core) { [weak self] generation, result in
            self?.enqueue { [weak self] in
                guard let self, self.polling.end(generation) else { return }
                await self.finishLogin(result)
            }
        }
    }

    /// `handleExternalURL:` — the web view reached the redirect URL: completes a login or a logout.
    public func handleExternalURL(_ url: URL) {
        enqueue {
            let wasLoggingOut = self.state.withLock { state -> Bool in
                defer { state.loggingOut = false }
                return state.loggingOut
            }
            if wasLoggingOut, self.core.configuration.isRedirect(url) {
                self.send(self.translator.logoutPageClosed())
                return
            }
            await self.finishLogin(await self.result { () async throws(AccessEnablerError) in try await self.core.handleExternalURL(url) })
        }
    }

    private func finishLogin(_ result: Result<AuthenticationToken, AccessEnablerError>) async {
        switch result {
        case .success(let token): await conclude(.loggedIn(token))
        case .failure(let error): if !Task.isCancelled { await conclude(.loginFailed(error)) }
        }
    }

    // MARK: Authorization

    /// `checkPreauthorizedResources:` and `checkPreauthorizedResources:cache:`.
    public func checkPreauthorizedResources(_ resources: [String], cache: Bool = true) {
        enqueue {
            let result = await self.result { () async throws(AccessEnablerError) in
                try await self.core.preauthorize(resources, cache: cache)
            }
            self.send(self.translator.preauthorized(result))
        }
    }

    /// `checkAuthorization:` / `checkAuthorization:withData:` — never starts a login.
    public func checkAuthorization(_ resource: String, withData data: [String: String] = [:]) {
        enqueue { await self.runAuthorization(resource, data: data) }
    }

    /// `getAuthorization:` / `getAuthorization:withData:` — starts a login first when the user is not authenticated.
    public func getAuthorization(_ resource: String, withData data: [String: String] = [:]) {
        enqueue {
            self.noteUnsent("the data of checkAuthorization:withData: and getAuthorization:withData:", keys: data.keys)
            let report = await self.core.authorizationReport(resource: resource, data: data)
            guard report.authentication != nil else {
                self.state.withLock { $0.pendingAuthorization = (resource, data) }
                await self.runAuthentication(forceAuthn: false, providers: nil, featured: [], data: [:])
                return
            }
            self.send(self.translator.authorization(resource, Self.outcome(report)))
        }
    }

    private func authorizePending() async {
        let pending = state.withLock { state -> (resource: String, data: [String: String])? in
            defer { state.pendingAuthorization = nil }
            return state.pendingAuthorization
        }
        if let pending { await runAuthorization(pending.resource, data: pending.data) }
    }

    /// Authentication first: without it (or without a requestor) the call ends with no login UI.
    private func runAuthorization(_ resource: String, data: [String: String]) async {
        noteUnsent("the data of checkAuthorization:withData: and getAuthorization:withData:", keys: data.keys)
        send(translator.authorization(resource, Self.outcome(await core.authorizationReport(resource: resource, data: data))))
    }

    /// What the translator reports of an authorization.
    private static func outcome(_ report: AsyncAccessEnabler.AuthorizationReport) -> DelegateTranslator.AuthorizationOutcome {
        guard let authentication = report.authentication else { return .notAuthenticated }
        switch report.result {
        case .success(let token): return .authorized(token, authentication: authentication, cached: report.cached)
        case .failure(let error): return .failed(error, authentication: authentication, cached: report.cached)
        }
    }
}

/// Forwards the platform picker to the delegate.
private struct DelegatePresenter: TVProviderDialogPresenter {
    let enabler: AccessEnabler
    func present(_ dialog: TVProviderDialog) async { enabler.send([.presentTvProviderDialog(dialog)]) }
    func dismiss(_ dialog: TVProviderDialog) async { enabler.send([.dismissTvProviderDialog(dialog)]) }
}
