import Foundation
import NIOConcurrencyHelpers
import TVECrypto
import TVEJSON

/// The AccessEnabler of the seeds: every method of `AccessEnabler.h`, answering through ``EntitlementDelegate`` and
/// ``EntitlementStatus`` callbacks, over ``AsyncAccessEnabler``.
///
/// Calls never block: each becomes a job run in order, so that calls made before `setRequestorComplete` wait for
/// the requestor and then run in the order they were made (the cookbook's queuing). Callbacks are delivered by the
/// `deliver` closure (a serial queue by default). The tvOS wait for a second screen runs beside the queue.
public final class AccessEnabler: Sendable {
    /// `ACCESS_ENABLER_STATUS_SUCCESS`
    public static let statusSuccess = 1
    /// `ACCESS_ENABLER_STATUS_ERROR`
    public static let statusError = 0
    /// `USER_AUTHENTICATED`: the error code of a successful authentication.
    public static let userAuthenticated = ""

    /// The async API underneath.
    public let core: AsyncAccessEnabler
    private let deliver: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    private let worker: Task<Void, Never>

    private struct Weak: @unchecked Sendable {
        weak var delegate: (any EntitlementDelegate)?
        weak var statusDelegate: (any EntitlementStatus)?
    }

    private struct State {
        var delegates = Weak()
        /// The tvOS wait for a second screen, and its generation.
        var polling: (id: UUID, task: Task<Void, Never>)?
        /// getAuthorization started a login: authorize this resource once it succeeds.
        var pendingAuthorization: (resource: String, data: [String: String])?
        /// logout sent the app to the logout page: handleExternalURL ends the logout.
        var loggingOut = false
        /// `withData` of the last getAuthentication, sent with the login.
        var loginData: [String: String] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// - Parameters:
    ///   - core: the async API (``AsyncAccessEnabler/init(softwareStatement:redirectURI:configuration:)`` for `init:softwareStatement`,
    ///     ``AsyncAccessEnabler/init(configuration:)`` for the deprecated `init`).
    ///   - deliver: runs each callback; a serial dispatch queue by default.
    public init(core: AsyncAccessEnabler, deliver: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil) {
        self.core = core
        let queue = DispatchQueue(label: "tvekit.accessenabler.callbacks")
        self.deliver = deliver ?? { work in queue.async(execute: work) }
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        jobs = continuation
        worker = Task {
            for await job in stream { await job() }
        }
    }

    /// `init:softwareStatement`.
    public convenience init(softwareStatement: String, configuration: AsyncAccessEnabler.Configuration = .init(),
                            deliver: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil) {
        self.init(core: AsyncAccessEnabler(softwareStatement: softwareStatement, configuration: configuration), deliver: deliver)
    }

    deinit {
        jobs.finish()
        worker.cancel()
        state.withLockedValue { $0.polling }?.task.cancel()
    }

    /// The delegate (held weakly).
    public var delegate: (any EntitlementDelegate)? {
        get { state.withLockedValue { $0.delegates.delegate } }
        set { state.withLockedValue { $0.delegates.delegate = newValue } }
    }

    /// The receiver of `status` (held weakly).
    public var statusDelegate: (any EntitlementStatus)? {
        get { state.withLockedValue { $0.delegates.statusDelegate } }
        set { state.withLockedValue { $0.delegates.statusDelegate = newValue } }
    }

    // MARK: Plumbing

    private func enqueue(_ job: @escaping @Sendable () async -> Void) { jobs.yield(job) }

    private func callback(_ body: @escaping @Sendable (any EntitlementDelegate) -> Void) {
        let delegate = self.delegate
        guard let delegate else { return }
        deliver { body(delegate) }
    }

    private func report(_ status: AdvancedStatus) {
        guard let receiver = statusDelegate else { return }
        deliver { receiver.status(status) }
    }

    private func authenticationStatus(_ status: Int, _ code: String) {
        callback { $0.setAuthenticationStatus(status, errorCode: code) }
    }

    /// A failed authentication: `setAuthenticationStatus` carries one of the seeds' three codes; anything more
    /// specific (`CFG400`, `CFG429`, `LS011`, ...) goes to `status` first.
    private func authenticationFailed(_ error: AccessEnablerError) {
        let documented: [AccessEnablerError.Code] = [.userNotAuthenticated, .providerNotSelected, .genericAuthentication]
        if !documented.contains(error.code) { report(AdvancedStatus(id: error.code.rawValue, level: .error, message: error.message)) }
        authenticationStatus(Self.statusError, documented.contains(error.code) ? error.code.rawValue : AccessEnablerError.Code.genericAuthentication.rawValue)
    }

    /// The tracking data's device type, client type and operating system.
    private var platformFields: [String] {
        core.configuration.platform == .iOS ? ["mobile", "ios", "iOS"] : ["unknown", "ios", "tvOS"]
    }

    /// The hashed user GUID of tracking data: MD5 of the user ID, in lowercase hex, as the seeds say (an identifier
    /// that must match what other AccessEnabler clients report, not a protection). Empty if MD5 is unavailable.
    static func hashedGUID(_ userID: String) -> String {
        ((try? InsecureDigest.md5(Array(userID.utf8))) ?? []).map { String(format: "%02x", $0) }.joined()
    }

    private func trackAuthentication(_ token: AuthenticationToken?, cached: Bool) {
        let data = [token != nil ? "true" : "false", token?.mvpd ?? "", token.map { Self.hashedGUID($0.userID) } ?? "", cached ? "true" : "false"]
            + platformFields
        callback { $0.sendTrackingData(data, forEventType: .authentication) }
    }

    private func trackAuthorization(success: Bool, mvpd: String?, userID: String?, cached: Bool, error: AccessEnablerError?) {
        let data = [success ? "true" : "false", mvpd ?? "", userID.map(Self.hashedGUID) ?? "", cached ? "true" : "false",
                    error?.code.rawValue ?? "", error?.message ?? ""] + platformFields
        callback { $0.sendTrackingData(data, forEventType: .authorization) }
    }

    // MARK: Configuration

    /// `setOptions:`.
    public func setOptions(_ options: AsyncAccessEnabler.Options) {
        enqueue { await self.core.setOptions(options) }
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
    public func setRequestor(_ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil, secret: String, publicKey: String) {
        enqueue {
            await self.finishSetRequestor { () async throws(AccessEnablerError) in
                try await self.core.setRequestor(requestorID, signedRequestorID: signedRequestorID, serviceProviders: serviceProviders,
                                                 secret: SecureBytes(utf8: secret), publicKey: publicKey)
            }
        }
    }

    private func finishSetRequestor(_ body: () async throws(AccessEnablerError) -> [MVPD]) async {
        do {
            _ = try await body()
        } catch {
            report(AdvancedStatus(id: error.code.rawValue, level: .error, message: error.message))
            callback { $0.setRequestorComplete(Self.statusError) }
            return
        }
        // The platform account may authenticate silently (no callback but status codes).
        let (_, statuses) = await core.silentPlatformSSO()
        statuses.forEach(report)
        callback { $0.setRequestorComplete(Self.statusSuccess) }
    }

    // MARK: Authentication

    /// `checkAuthentication`: the local token store (and the platform account's silent sign-in).
    public func checkAuthentication() {
        enqueue {
            let (_, statuses) = await self.core.silentPlatformSSO()
            statuses.forEach(self.report)
            do {
                let token = try await self.core.checkAuthentication()
                self.trackAuthentication(token, cached: true)
                self.authenticationStatus(Self.statusSuccess, Self.userAuthenticated)
            } catch {
                self.trackAuthentication(nil, cached: true)
                self.authenticationStatus(Self.statusError, AccessEnablerError.Code.userNotAuthenticated.rawValue)
            }
        }
    }

    /// `getAuthentication`, `getAuthentication:withData:` (`data` is accepted and not used by the local service provider).
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String] = [:]) {
        enqueue { await self.runAuthentication(forceAuthn: forceAuthn, providers: nil, featured: [], data: data) }
    }

    /// `getAuthentication:filter` / `getAuthentication:withData:andFilter:` with the dictionary filter: `TV_PROVIDERS`
    /// (MVPD IDs, in order) and `FEATURED_TV_PROVIDERS` (a subset). Ignored when no MVPD supports platform SSO.
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String] = [:], filter: [String: [String]]) {
        let featured = filter["FEATURED_TV_PROVIDERS"] ?? []
        let providers = filter["TV_PROVIDERS"].map { all in all } ?? []
        enqueue {
            await self.runAuthentication(forceAuthn: forceAuthn, providers: providers.isEmpty ? nil : providers,
                                         featured: featured.filter { providers.contains($0) }, data: data)
        }
    }

    /// The legacy array filter (`getAuthentication:` with an NSArray): the MVPD IDs the platform picker shows.
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String] = [:], filter: [String]) {
        enqueue { await self.runAuthentication(forceAuthn: forceAuthn, providers: filter, featured: [], data: data) }
    }

    /// The deprecated `getAuthenticationToken`: completes a login without the URL.
    public func getAuthenticationToken() {
        enqueue { await self.finishLogin { () async throws(AccessEnablerError) in try await self.core.completeAuthentication() } }
    }

    private func runAuthentication(forceAuthn: Bool, providers: [String]?, featured: [String], data: [String: String]) async {
        stopPolling()
        state.withLockedValue {
            $0.loggingOut = false
            $0.loginData = data
        }
        do {
            if case .authenticated(let token) = try await core.startAuthentication(forceAuthn: forceAuthn) {
                trackAuthentication(token, cached: true)
                authenticationStatus(Self.statusSuccess, Self.userAuthenticated)
                await authorizePending()
                return
            }
            let platformMVPDs = await core.platformMVPDs
            if core.configuration.tvProviderAccount != nil, !platformMVPDs.isEmpty {
                let presenter = DelegatePresenter(enabler: self)
                switch try await core.authenticateWithPlatformSSO(providers: providers, featured: featured, presenter: presenter) {
                case .authenticated(let token):
                    trackAuthentication(token, cached: false)
                    authenticationStatus(Self.statusSuccess, Self.userAuthenticated)
                    await authorizePending()
                case .fallback(let status, let mvpds):
                    if let status { report(status) }
                    callback { $0.displayProviderDialog(mvpds) }
                case .login(_, let step):
                    follow(step)
                }
                return
            }
            trackAuthentication(nil, cached: true)
            let mvpds = await core.mvpds
            callback { $0.displayProviderDialog(mvpds) }
        } catch {
            state.withLockedValue { $0.pendingAuthorization = nil }
            authenticationFailed(error)
        }
    }

    /// `setSelectedProvider:` — nil cancels the login (`PROVIDER_NOT_SELECTED_ERROR`).
    public func setSelectedProvider(_ mvpdID: String?) {
        enqueue {
            self.stopPolling()
            let data = self.state.withLockedValue { state -> [String: String] in
                state.loggingOut = false
                return state.loginData
            }
            if let mvpdID {
                let fields = self.platformFields
                self.callback { $0.sendTrackingData([mvpdID] + fields, forEventType: .getSelectedProvider) }
            }
            do {
                self.follow(try await self.core.selectProvider(mvpdID, data: data))
            } catch let error as AccessEnablerError {
                self.state.withLockedValue { $0.pendingAuthorization = nil }
                self.authenticationFailed(error)
            } catch {
                self.authenticationStatus(Self.statusError, AccessEnablerError.Code.genericAuthentication.rawValue)
            }
        }
    }

    /// Sends the app to the login page (iOS) or shows the registration code and waits for the second screen (tvOS).
    private func follow(_ step: AsyncAccessEnabler.LoginStep) {
        switch step {
        case .navigate(let url, let useSVC):
            callback { delegate in
                if useSVC { delegate.navigateToUrl(url, useSVC: true) } else { delegate.navigateToUrl(url) }
            }
        case .registrationCode(let code):
            stopPolling()
            report(.registrationCode(code))
            // The wait runs beside the job queue and holds the enabler weakly: dropping it ends the wait. Its answer
            // is reported from the queue, after the calls made meanwhile; a logout or another login made since has
            // ended the wait, and then nothing is reported.
            let core = self.core
            let generation = UUID()
            let task = Task { [weak self] in
                let result: Result<AuthenticationToken, AccessEnablerError>
                do {
                    result = .success(try await core.waitForSecondScreen())
                } catch let error as AccessEnablerError {
                    if Task.isCancelled || error.code == .providerNotSelected { return }
                    result = .failure(error)
                } catch {
                    return
                }
                self?.enqueue { [weak self] in
                    guard let self, self.endPolling(generation) else { return }
                    await self.finishLogin { () async throws(AccessEnablerError) in try result.get() }
                }
            }
            state.withLockedValue { $0.polling = (generation, task) }
        }
    }

    private func stopPolling() {
        let polling = state.withLockedValue { state -> (id: UUID, task: Task<Void, Never>)? in
            defer { state.polling = nil }
            return state.polling
        }
        polling?.task.cancel()
    }

    /// Whether the wait `generation` is still the current one; it ends if so.
    private func endPolling(_ generation: UUID) -> Bool {
        state.withLockedValue { state in
            guard state.polling?.id == generation else { return false }
            state.polling = nil
            return true
        }
    }

    /// `handleExternalURL:` — the web view reached the redirect URL: completes a login or a logout.
    public func handleExternalURL(_ url: URL) {
        enqueue {
            let wasLoggingOut = self.state.withLockedValue { state -> Bool in
                defer { state.loggingOut = false }
                return state.loggingOut
            }
            if wasLoggingOut, AsyncAccessEnabler.isRedirect(url, self.core.configuration.redirectURL) {
                self.authenticationStatus(Self.statusError, Self.userAuthenticated)
                return
            }
            await self.finishLogin { () async throws(AccessEnablerError) in try await self.core.handleExternalURL(url) }
        }
    }

    private func finishLogin(_ body: () async throws(AccessEnablerError) -> AuthenticationToken) async {
        do {
            let token = try await body()
            trackAuthentication(token, cached: false)
            authenticationStatus(Self.statusSuccess, Self.userAuthenticated)
            await authorizePending()
        } catch {
            if Task.isCancelled { return }
            trackAuthentication(nil, cached: false)
            state.withLockedValue { $0.pendingAuthorization = nil }
            authenticationFailed(error)
        }
    }

    // MARK: Authorization

    /// `checkPreauthorizedResources:` and `checkPreauthorizedResources:cache:`.
    public func checkPreauthorizedResources(_ resources: [String], cache: Bool = true) {
        enqueue {
            let allowed = (try? await self.core.preauthorize(resources, cache: cache)) ?? []
            self.callback { $0.preauthorizedResources(allowed) }
        }
    }

    /// `checkAuthorization:` / `checkAuthorization:withData:` — never starts a login.
    public func checkAuthorization(_ resource: String, withData data: [String: String] = [:]) {
        enqueue { await self.runAuthorization(resource, data: data) }
    }

    /// `getAuthorization:` / `getAuthorization:withData:` — starts a login first when the user is not authenticated.
    public func getAuthorization(_ resource: String, withData data: [String: String] = [:]) {
        enqueue {
            if (try? await self.core.checkAuthentication()) == nil {
                self.state.withLockedValue { $0.pendingAuthorization = (resource, data) }
                await self.runAuthentication(forceAuthn: false, providers: nil, featured: [], data: [:])
                return
            }
            await self.runAuthorization(resource, data: data)
        }
    }

    private func authorizePending() async {
        let pending = state.withLockedValue { state -> (resource: String, data: [String: String])? in
            defer { state.pendingAuthorization = nil }
            return state.pendingAuthorization
        }
        if let pending { await runAuthorization(pending.resource, data: pending.data) }
    }

    private func runAuthorization(_ resource: String, data: [String: String]) async {
        // Authentication first: without it (or without a requestor) the call ends here, with no login UI.
        guard let authentication = try? await core.checkAuthentication() else {
            trackAuthorization(success: false, mvpd: nil, userID: nil, cached: false,
                               error: AccessEnablerError(.userNotAuthenticated, "the user is not authenticated"))
            callback { $0.tokenRequestFailed(resource, errorCode: AccessEnablerError.Code.userNotAuthenticated.rawValue, errorDescription: "") }
            return
        }
        let cached = (try? await core.metadata(.authorizationTTL(resource: resource)))?.value != nil
        do {
            let token = try await core.authorize(resource: resource, data: data)
            trackAuthorization(success: true, mvpd: authentication.mvpd, userID: authentication.userID, cached: cached, error: nil)
            callback { $0.setToken(token, forResource: resource) }
        } catch {
            trackAuthorization(success: false, mvpd: authentication.mvpd, userID: authentication.userID, cached: cached, error: error)
            let code = error.code == .userNotAuthenticated || error.code == .userNotAuthorized ? error.code.rawValue
                : AccessEnablerError.Code.userNotAuthorized.rawValue
            let description = error.code == .userNotAuthorized ? error.message : (error.code == .userNotAuthenticated ? "" : error.message)
            callback { $0.tokenRequestFailed(resource, errorCode: code, errorDescription: description) }
        }
    }

    // MARK: Logout, provider, metadata

    /// `logout` — local tokens cleared, the server session ended; on iOS the app is sent to the logout page and
    /// `handleExternalURL` ends it, on tvOS it ends at once. `VSA203` after a platform-SSO login.
    public func logout() {
        enqueue {
            self.stopPolling()
            self.state.withLockedValue { $0.pendingAuthorization = nil }
            do {
                let outcome = try await self.core.logout()
                if outcome.platformSSO { self.report(.signOutInSettings) }
                if let error = outcome.serverError {
                    self.report(AdvancedStatus(id: error.code.rawValue, level: .warning, message: "logged out here; " + error.message))
                }
                if let page = outcome.page {
                    self.state.withLockedValue { $0.loggingOut = true }
                    let useSVC = await self.core.currentOptions.handleSVC
                    self.callback { delegate in
                        if useSVC { delegate.navigateToUrl(page, useSVC: true) } else { delegate.navigateToUrl(page) }
                    }
                } else {
                    self.authenticationStatus(Self.statusError, Self.userAuthenticated)
                }
            } catch let error as AccessEnablerError {
                // The token store could not be written: the tokens in memory are gone all the same.
                self.report(AdvancedStatus(id: error.code.rawValue, level: .error, message: error.message))
                self.authenticationStatus(Self.statusError, Self.userAuthenticated)
            } catch {
                self.authenticationStatus(Self.statusError, Self.userAuthenticated)
            }
        }
    }

    /// `getSelectedProvider`.
    public func getSelectedProvider() {
        enqueue {
            let mvpd = try? await self.core.selectedProvider()
            self.callback { $0.selectedProvider(mvpd ?? nil) }
        }
    }

    /// `getMetadata:` — answered with `setMetadataStatus` (the request is echoed as the arguments).
    public func getMetadata(_ request: MetadataRequest) {
        enqueue {
            let opcode: MetadataOpcode
            switch request {
            case .authenticationTTL: opcode = .authentication
            case .authorizationTTL: opcode = .authorization
            case .deviceID: opcode = .deviceID
            case .userMetadata: opcode = .userMeta
            }
            let answer = try? await self.core.metadata(request)
            self.callback { $0.setMetadataStatus(answer?.value, encrypted: answer?.encrypted ?? false, forKey: opcode, andArguments: request) }
        }
    }

    /// Waits until every call made so far has been handled (for tests and tools; the callbacks may still be in flight
    /// on the callback executor).
    public func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueue { continuation.resume() }
        }
    }

    fileprivate func presentDialog(_ dialog: TVProviderDialog) { callback { $0.presentTvProviderDialog(dialog) } }
    fileprivate func dismissDialog(_ dialog: TVProviderDialog) { callback { $0.dismissTvProviderDialog(dialog) } }
}

/// Forwards the platform picker to the delegate.
private struct DelegatePresenter: TVProviderDialogPresenter {
    let enabler: AccessEnabler
    func present(_ dialog: TVProviderDialog) async { enabler.presentDialog(dialog) }
    func dismiss(_ dialog: TVProviderDialog) async { enabler.dismissDialog(dialog) }
}
