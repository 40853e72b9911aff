import Foundation
import TVECrypto
import TVEJSON
import TVEMetadata
import TVETokens

/// The device platform, which decides the login path (a web view on iOS, a registration code on tvOS) and the
/// `deviceType` sent to the service provider.
public enum EntitlementPlatform: String, Sendable, Hashable {
    case iOS, tvOS
}

/// What can be asked with `getMetadata`.
public enum MetadataRequest: Sendable, Hashable {
    /// `METADATA_AUTHENTICATION`: when the authentication expires (milliseconds since the epoch, as a string).
    case authenticationTTL
    /// `METADATA_AUTHORIZATION`: when the authorization of a resource expires.
    case authorizationTTL(resource: String)
    /// `METADATA_DEVICE_ID`: the device ID the flow layer sends.
    case deviceID
    /// `METADATA_USER_META`: one user-metadata value (`zip`, `householdID`, `maxRating`, `userID`, `tokenSource`, ...).
    case userMetadata(key: String)
}

/// A `getMetadata` answer: the value (nil when there is none) and whether it is still encrypted (user metadata
/// when no ``MetadataDecryptor`` was configured).
public struct MetadataAnswer: Sendable, Hashable {
    public let value: JSONValue?
    public let encrypted: Bool

    public init(value: JSONValue?, encrypted: Bool) {
        self.value = value
        self.encrypted = encrypted
    }
}

/// The flow layer's async API: one actor per application, talking REST API v1 to the service providers.
/// ``AccessEnabler`` is the delegate API of the seeds, an adapter over this.
public actor AsyncAccessEnabler {
    /// What does not change per call.
    public struct Configuration: Sendable {
        public var transport: any EntitlementTransport
        public var tokenStore: any EntitlementTokenStore
        public var clock: any MediaTokenClock
        public var platform: EntitlementPlatform
        /// The URL a login or logout ends at (`ADOBEPASS_REDIRECT_URL`, or the app's custom scheme).
        public var redirectURL: String
        /// Decrypts user metadata for ``metadata(_:)``; without one, encrypted values are returned as they came.
        public var metadataDecryptor: MetadataDecryptor?
        /// How the tvOS flow waits for the second screen: the first interval (at least 1 ms; doubling up to 10 s) and
        /// the limit.
        public var pollingInterval: Duration
        public var pollingTimeout: Duration
        /// How the flow layer waits (back-off, polling); tests make it instant.
        public var sleep: @Sendable (Duration) async -> Void
        /// The platform's single-sign-on framework, when the app has one (Apple's Video Subscriber Account).
        public var tvProviderAccount: (any TVProviderAccountProvider)?

        public init(transport: any EntitlementTransport = URLSessionTransport(), tokenStore: any EntitlementTokenStore = InMemoryTokenStore(),
                    clock: any MediaTokenClock = SystemMediaTokenClock(), platform: EntitlementPlatform = .iOS,
                    redirectURL: String = AsyncAccessEnabler.defaultRedirectURL, metadataDecryptor: MetadataDecryptor? = nil,
                    pollingInterval: Duration = .seconds(2), pollingTimeout: Duration = .seconds(1800),
                    sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
                    tvProviderAccount: (any TVProviderAccountProvider)? = nil) {
            self.tvProviderAccount = tvProviderAccount
            self.transport = transport
            self.tokenStore = tokenStore
            self.clock = clock
            self.platform = platform
            self.redirectURL = redirectURL
            self.metadataDecryptor = metadataDecryptor
            self.pollingInterval = pollingInterval
            self.pollingTimeout = pollingTimeout
            self.sleep = sleep
        }
    }

    /// `setOptions` keys: sent with every call to the service provider.
    public struct Options: Sendable, Hashable {
        public var applicationProfile: String?
        public var visitorID: String?
        /// The app presents SFSafariViewController itself: logins go through `navigateToUrl(_:useSVC:)`.
        public var handleSVC: Bool
        /// `device_info`: the client information (Base64 of a JSON object with at least `model` and `osName`).
        public var deviceInfo: String?

        public init(applicationProfile: String? = nil, visitorID: String? = nil, handleSVC: Bool = false, deviceInfo: String? = nil) {
            self.applicationProfile = applicationProfile
            self.visitorID = visitorID
            self.handleSVC = handleSVC
            self.deviceInfo = deviceInfo
        }
    }

    /// `ADOBEPASS_REDIRECT_URL`.
    public static let defaultRedirectURL = "adobepass://ios.app"
    /// Adobe's production service provider, the default of `setRequestor`.
    public static let defaultServiceProvider = URL(string: "https://sp.auth.adobe.com")

    public let configuration: Configuration
    private var identity: ClientIdentity?
    private var options = Options()
    private(set) var requestorID: String?
    private var clients: [URL: ServiceProviderClient] = [:]
    /// The merged MVPD list of the last `setRequestor`.
    public private(set) var mvpds: [MVPD] = []
    private var stored: StoredEntitlements?
    /// The requestor `stored` belongs to.
    private var storedRequestor: String?
    /// The login in progress: the MVPD picked and its registration code.
    private var pendingLogin: (mvpd: MVPD, code: String)?
    /// What the clients were built with (a change of credentials rebuilds them).
    private var clientsIdentity: String?

    // An actor is reentrant at every `await`: the operations that read the stored tokens, wait on the network and
    // write them back run one at a time under this lock, so that none saves a copy another has made stale.
    private var locked = false
    private var lockWaiters: [CheckedContinuation<Void, Never>] = []

    private func acquire() async {
        guard locked else {
            locked = true
            return
        }
        await withCheckedContinuation { lockWaiters.append($0) }
    }

    private func release() {
        if lockWaiters.isEmpty { locked = false } else { lockWaiters.removeFirst().resume() }
    }

    /// `init:softwareStatement` (SDK 3.x): Dynamic Client Registration with the software statement.
    public init(softwareStatement: String, redirectURI: String? = nil, configuration: Configuration = Configuration()) {
        identity = .softwareStatement(softwareStatement, redirectURI: redirectURI)
        self.configuration = configuration
    }

    /// The deprecated `init`: the app identifies itself later, with `setRequestor(_:signedRequestorID:...)`.
    public init(configuration: Configuration = Configuration()) {
        identity = nil
        self.configuration = configuration
    }

    // MARK: Options and requestor

    /// `setOptions`: applies to every later call.
    public func setOptions(_ options: Options) async {
        self.options = options
        for client in clients.values { await client.setExtras(extraFields, deviceInfo: deviceInfoValue) }
    }

    public var currentOptions: Options { options }

    var deviceInfoValue: String {
        options.deviceInfo ?? Data(#"{"model":"\#(configuration.platform.rawValue)","osName":"\#(configuration.platform.rawValue)","applicationId":"tvekit"}"#.utf8)
            .base64EncodedString()
    }

    var extraFields: [(String, String)] {
        var fields: [(String, String)] = []
        if let profile = options.applicationProfile { fields.append(("applicationProfile", profile)) }
        if let visitor = options.visitorID { fields.append(("visitorID", visitor)) }
        return fields
    }

    /// `setRequestor(_:serviceProviders:)`: asks every service provider for the requestor's configuration at once and
    /// merges the MVPD lists; an MVPD stays with the first provider that answered with it, and every later call
    /// about it goes there. Succeeds when at least one provider answered.
    @discardableResult
    public func setRequestor(_ requestorID: String, serviceProviders: [URL]? = nil) async throws(AccessEnablerError) -> [MVPD] {
        guard let identity else {
            throw AccessEnablerError(.notRegistered, "no software statement: use init(softwareStatement:) or setRequestor(_:signedRequestorID:)")
        }
        return try await configure(requestorID, identity: identity, serviceProviders: serviceProviders)
    }

    /// The deprecated `setRequestor:signedRequestorID:[serviceProviders:]` (SDK 1.x/2.x).
    @discardableResult
    public func setRequestor(_ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil) async throws(AccessEnablerError) -> [MVPD] {
        identity = .signedRequestorID(signedRequestorID)
        return try await configure(requestorID, identity: .signedRequestorID(signedRequestorID), serviceProviders: serviceProviders)
    }

    /// The deprecated tvOS `setRequestor:signedRequestorID:[serviceProviders:]secret:publicKey:`: every call carries the
    /// clientless HMAC-SHA1 header made with `secret`.
    @discardableResult
    public func setRequestor(_ requestorID: String, signedRequestorID: String, serviceProviders: [URL]? = nil, secret: SecureBytes,
                             publicKey: String) async throws(AccessEnablerError) -> [MVPD] {
        identity = .clientless(publicKey: publicKey, secret: secret)
        return try await configure(requestorID, identity: .clientless(publicKey: publicKey, secret: secret), serviceProviders: serviceProviders)
    }

    /// A fingerprint of the credentials (never stored or shown).
    private static func identityKey(_ identity: ClientIdentity) -> String {
        let text: String
        switch identity {
        case .softwareStatement(let statement, let redirect): text = "s\u{0}" + statement + "\u{0}" + (redirect ?? "")
        case .signedRequestorID(let signature): text = "r\u{0}" + signature
        case .clientless(let publicKey, let secret): text = "c\u{0}" + publicKey + "\u{0}" + Base64.encode(secret)
        }
        return ((try? HashFunction.sha256.hash(Array(text.utf8))) ?? []).map { String(format: "%02x", $0) }.joined()
    }

    private func configure(_ requestorID: String, identity: ClientIdentity, serviceProviders: [URL]?) async throws(AccessEnablerError) -> [MVPD] {
        await acquire()
        defer { release() }
        guard !requestorID.isEmpty, requestorID.utf8.count <= 256 else { throw AccessEnablerError(.invalidRequestor, "the requestor ID is empty or too long") }
        let urls = serviceProviders ?? [Self.defaultServiceProvider].compactMap { $0 }
        guard !urls.isEmpty, urls.count <= 16 else { throw AccessEnablerError(.invalidRequestor, "give 1 to 16 service-provider URLs") }
        let key = Self.identityKey(identity)
        // Clients are reused (with their access tokens) only for the same requestor and credentials.
        let reusable = requestorID == self.requestorID && key == clientsIdentity ? clients : [:]
        var newClients: [URL: ServiceProviderClient] = [:]
        for url in urls {
            newClients[url] = reusable[url] ?? ServiceProviderClient(baseURL: url, requestor: requestorID, identity: identity,
                                                                     transport: configuration.transport, deviceInfo: deviceInfoValue,
                                                                     extraFields: extraFields, clock: configuration.clock, sleep: configuration.sleep)
        }
        // Every provider at once; merge in the order they answer.
        var merged: [MVPD] = []
        var failures: [AccessEnablerError] = []
        await withTaskGroup(of: Result<[MVPD], AccessEnablerError>.self) { group in
            for client in newClients.values {
                group.addTask {
                    do { return .success(try await client.mvpds()) } catch let error as AccessEnablerError { return .failure(error) } catch {
                        return .failure(AccessEnablerError(.internalError, "configuration failed"))
                    }
                }
            }
            for await result in group {
                switch result {
                case .success(let list):
                    for mvpd in list where !merged.contains(where: { $0.id == mvpd.id }) { merged.append(mvpd) }
                case .failure(let error):
                    failures.append(error)
                }
            }
        }
        guard failures.count < newClients.count else {
            throw failures.first ?? AccessEnablerError(.configurationUnavailable, "no service provider answered")
        }
        // Committed only now: a failed setRequestor leaves the previous requestor in place.
        if requestorID != self.requestorID {
            pendingLogin = nil
            stored = nil
            storedRequestor = nil
        }
        self.requestorID = requestorID
        clients = newClients
        clientsIdentity = key
        mvpds = merged
        var entitlements = try loadStored()
        // An authentication whose MVPD is no longer offered is void.
        if let authentication = entitlements.authentication, !merged.contains(where: { $0.id == authentication.mvpd }) {
            entitlements.authentication = nil
            entitlements.authorizations = [:]
        }
        // Re-sync (an app calls setRequestor again when it returns to the foreground): a stored authentication the
        // service provider no longer has (a logout elsewhere, an expiry) is dropped. A provider that cannot be asked
        // leaves it as it is.
        if let authentication = entitlements.authentication, let (client, _) = try? client(for: authentication.mvpd) {
            do {
                if try await client.authenticationToken(deviceID: entitlements.deviceID) == nil {
                    entitlements.authentication = nil
                    entitlements.authorizations = [:]
                }
            } catch {}
        }
        try save(entitlements)
        return merged
    }

    // MARK: State

    private func requireRequestor() throws(AccessEnablerError) -> String {
        guard let requestorID else { throw AccessEnablerError(.invalidRequestor, "setRequestor has not completed") }
        return requestorID
    }

    private func loadStored() throws(AccessEnablerError) -> StoredEntitlements {
        let requestor = try requireRequestor()
        if var stored, storedRequestor == requestor {
            stored.prune(now: configuration.clock.nowMilliseconds)
            return stored
        }
        let loaded: StoredEntitlements?
        do {
            loaded = try configuration.tokenStore.load(requestor: requestor)
        } catch let error as AccessEnablerError {
            throw error
        } catch {
            throw AccessEnablerError(.storageError, "the token store cannot be read")
        }
        var entitlements = loaded ?? StoredEntitlements(deviceID: Self.newDeviceID())
        entitlements.prune(now: configuration.clock.nowMilliseconds)
        stored = entitlements
        storedRequestor = requestor
        return entitlements
    }

    private func save(_ entitlements: StoredEntitlements) throws(AccessEnablerError) {
        var entitlements = entitlements
        entitlements.limitAuthorizations()
        stored = entitlements
        storedRequestor = requestorID
        do {
            try configuration.tokenStore.save(entitlements, requestor: try requireRequestor())
        } catch let error as AccessEnablerError {
            throw error
        } catch {
            throw AccessEnablerError(.storageError, "the token store cannot be written")
        }
    }

    /// 32 random hex digits.
    static func newDeviceID() -> String {
        ((try? SecureRandom.bytes(count: 16)) ?? Array(UUID().uuidString.utf8.prefix(16))).map { String(format: "%02x", $0) }.joined()
    }

    /// The device ID sent to the service providers.
    public func deviceID() throws(AccessEnablerError) -> String { try loadStored().deviceID }

    private func client(for mvpdID: String) throws(AccessEnablerError) -> (ServiceProviderClient, MVPD) {
        guard let mvpd = mvpds.first(where: { $0.id == mvpdID }), let client = clients[mvpd.serviceProvider] else {
            throw AccessEnablerError(.providerNotAvailable, "the MVPD \(mvpdID) is not offered to this requestor")
        }
        return (client, mvpd)
    }

    // MARK: Authentication

    /// `checkAuthentication`: the local token store only, no network. Throws `USER_NOT_AUTHENTICATED_ERROR` when there
    /// is no valid authentication.
    public func checkAuthentication() throws(AccessEnablerError) -> AuthenticationToken {
        guard let authentication = try loadStored().authentication else {
            throw AccessEnablerError(.userNotAuthenticated, "no valid authentication token")
        }
        return authentication
    }

    /// Where `getAuthentication` stands: already authenticated, or the providers to pick from.
    public enum AuthenticationStep: Sendable, Hashable {
        case authenticated(AuthenticationToken)
        case selectProvider([MVPD])
    }

    /// `getAuthentication(forceAuthn:)`: the stored authentication unless `forceAuthn`, else the MVPDs to pick from.
    public func startAuthentication(forceAuthn: Bool = false) throws(AccessEnablerError) -> AuthenticationStep {
        if !forceAuthn, let authentication = try loadStored().authentication { return .authenticated(authentication) }
        pendingLogin = nil
        guard !mvpds.isEmpty else { throw AccessEnablerError(.providerNotAvailable, "no MVPD is offered to this requestor") }
        return .selectProvider(mvpds)
    }

    /// What `setSelectedProvider` leads to: the login page to open (iOS), or a registration code to show (tvOS).
    public enum LoginStep: Sendable, Hashable {
        /// Open `url` in a web view (or SFSafariViewController when `useSVC`) and call ``handleExternalURL(_:)`` when it
        /// reaches the redirect URL.
        case navigate(URL, useSVC: Bool)
        /// Show `code`; ``waitForSecondScreen()`` polls until the user has logged in elsewhere.
        case registrationCode(String)
    }

    /// `setSelectedProvider`: `nil` cancels (`PROVIDER_NOT_SELECTED_ERROR`, state reset); an MVPD starts its login.
    public func selectProvider(_ mvpdID: String?, data: [String: String] = [:]) async throws(AccessEnablerError) -> LoginStep {
        await acquire()
        defer { release() }
        return try await selectProviderLocked(mvpdID, data: data)
    }

    private func selectProviderLocked(_ mvpdID: String?, data: [String: String]) async throws(AccessEnablerError) -> LoginStep {
        guard let mvpdID else {
            pendingLogin = nil
            throw AccessEnablerError(.providerNotSelected, "no provider was selected")
        }
        let (client, mvpd) = try client(for: mvpdID)
        let entitlements = try loadStored()
        let code: String
        do {
            code = try await client.registrationCode(deviceID: entitlements.deviceID, mvpd: mvpd.id)
        } catch {
            throw AccessEnablerError(.genericAuthentication, error.message, httpStatus: error.httpStatus)
        }
        pendingLogin = (mvpd, code)
        switch configuration.platform {
        case .tvOS:
            return .registrationCode(code)
        case .iOS:
            let url = await client.authenticationURL(mvpd: mvpd.id, registrationCode: code, redirectURL: configuration.redirectURL, data: data)
            return .navigate(url, useSVC: options.handleSVC)
        }
    }

    /// `handleExternalURL`: the login page reached the redirect URL; fetch and store the authentication token.
    public func handleExternalURL(_ url: URL) async throws(AccessEnablerError) -> AuthenticationToken {
        guard Self.isRedirect(url, configuration.redirectURL) else {
            throw AccessEnablerError(.genericAuthentication, "the URL is not the redirect URL")
        }
        return try await completeAuthentication()
    }

    /// Whether `url` is the configured redirect URL: the same scheme and host (case-insensitively) and path; a query
    /// or fragment may follow.
    static func isRedirect(_ url: URL, _ redirect: String) -> Bool {
        guard let expected = URL(string: redirect) else { return false }
        return url.scheme?.lowercased() == expected.scheme?.lowercased() && url.host?.lowercased() == expected.host?.lowercased()
            && url.path == expected.path && url.user == nil && url.port == expected.port
    }

    /// The deprecated `getAuthenticationToken`: the same as ``handleExternalURL(_:)`` without the URL.
    public func completeAuthentication() async throws(AccessEnablerError) -> AuthenticationToken {
        await acquire()
        defer { release() }
        guard let (mvpd, _) = pendingLogin else { throw AccessEnablerError(.genericAuthentication, "no login is in progress") }
        let (client, _) = try client(for: mvpd.id)
        var entitlements = try loadStored()
        let token: AuthenticationToken?
        do {
            token = try await client.authenticationToken(deviceID: entitlements.deviceID)
        } catch {
            throw AccessEnablerError(.genericAuthentication, error.message, httpStatus: error.httpStatus)
        }
        guard let token else { throw AccessEnablerError(.genericAuthentication, "the service provider has no authentication for this device") }
        // An authentication left from an earlier login with another MVPD is not this login (a stray redirect).
        guard token.mvpd == mvpd.id else {
            throw AccessEnablerError(.genericAuthentication, "the service provider's authentication is not for the MVPD being logged in to")
        }
        pendingLogin = nil
        entitlements.authentication = token
        entitlements.authorizations = [:]
        entitlements.selectedMVPD = mvpd
        try save(entitlements)
        return token
    }

    /// tvOS: polls `tokens/authn` (with back-off: the configured interval, doubling up to 10 s) until the user has
    /// logged in on a second screen with the registration code, or the polling timeout passes.
    public func waitForSecondScreen() async throws(AccessEnablerError) -> AuthenticationToken {
        guard let (mvpd, code) = pendingLogin else { throw AccessEnablerError(.genericAuthentication, "no login is in progress") }
        let (client, _) = try client(for: mvpd.id)
        let deviceID = try loadStored().deviceID
        let isCurrent = { [self] in pendingLogin?.mvpd.id == mvpd.id && pendingLogin?.code == code }
        var waited = Duration.zero
        var interval = max(configuration.pollingInterval, .milliseconds(1))
        while waited < configuration.pollingTimeout {
            if Task.isCancelled { throw AccessEnablerError(.genericAuthentication, "the wait for the second screen was cancelled") }
            // Only an authentication with the MVPD picked ends the wait (not one left from an earlier login).
            if let token = try? await client.authenticationToken(deviceID: deviceID), token.mvpd == mvpd.id {
                await acquire()
                defer { release() }
                guard isCurrent() else { throw AccessEnablerError(.providerNotSelected, "the login was cancelled") }
                var entitlements = try loadStored()
                pendingLogin = nil
                entitlements.authentication = token
                entitlements.authorizations = [:]
                entitlements.selectedMVPD = mvpd
                try save(entitlements)
                return token
            }
            guard isCurrent() else { throw AccessEnablerError(.providerNotSelected, "the login was cancelled") }
            await configuration.sleep(interval)
            waited += interval
            interval = min(interval * 2, .seconds(10))
        }
        throw AccessEnablerError(.genericAuthentication, "the registration code was not used in time")
    }

    /// `getSelectedProvider`: the MVPD of the login in progress, else the MVPD of the current authentication, else nil.
    public func selectedProvider() throws(AccessEnablerError) -> MVPD? {
        let entitlements = try loadStored()
        return pendingLogin?.mvpd ?? (entitlements.authentication != nil ? entitlements.selectedMVPD : nil)
    }

    // MARK: Authorization

    /// `checkAuthorization`: the device must be authenticated (else `USER_NOT_AUTHENTICATED_ERROR`, no login UI);
    /// authorizes the resource unless a valid authorization is stored, then returns a fresh short media token.
    public func authorize(resource: String, data: [String: String] = [:]) async throws(AccessEnablerError) -> String {
        await acquire()
        defer { release() }
        guard !resource.isEmpty, resource.utf8.count <= 16 * 1024 else { throw AccessEnablerError(.genericAuthorization, "the resource is empty or over 16 KiB") }
        var entitlements = try loadStored()
        guard let authentication = entitlements.authentication else {
            throw AccessEnablerError(.userNotAuthenticated, "the user is not authenticated")
        }
        let (client, _) = try client(for: authentication.mvpd)
        do {
            var cached = entitlements.authorizations[resource] != nil
            while true {
                if entitlements.authorizations[resource] == nil {
                    entitlements.authorizations[resource] = try await client.authorize(deviceID: entitlements.deviceID, resource: resource, data: data)
                    try save(entitlements)
                }
                do {
                    return try await client.mediaToken(deviceID: entitlements.deviceID, resource: resource)
                } catch where cached && (error.httpStatus == 404 || error.httpStatus == 410) {
                    // The service provider no longer holds the stored authorization: authorize again, once.
                    entitlements.authorizations[resource] = nil
                    cached = false
                }
            }
        } catch {
            if error.code == .userNotAuthenticated {
                // The service provider no longer knows the authentication: forget it.
                entitlements.authentication = nil
                entitlements.authorizations = [:]
                try? save(entitlements)
            } else if error.httpStatus == 404 || error.httpStatus == 410 {
                entitlements.authorizations[resource] = nil
                try? save(entitlements)
            }
            throw error
        }
    }

    /// `checkPreauthorizedResources(_:cache:)`: the resources the user may watch. With `cache`, resources with a
    /// stored valid authorization are answered without asking the service provider.
    public func preauthorize(_ resources: [String], cache: Bool = true) async throws(AccessEnablerError) -> [String] {
        guard resources.count <= 1000 else { throw AccessEnablerError(.tooManyResources, "at most 1,000 resources per preauthorization") }
        let entitlements = try loadStored()
        guard let authentication = entitlements.authentication else { return [] }
        let known = Set(cache ? resources.filter { entitlements.authorizations[$0] != nil } : [])
        let remaining = resources.filter { !known.contains($0) }
        guard !remaining.isEmpty else { return resources.filter { known.contains($0) } }
        let (client, _) = try client(for: authentication.mvpd)
        let decisions = try await client.preauthorize(deviceID: entitlements.deviceID, resources: remaining)
        let allowed = known.union(decisions.filter(\.authorized).map(\.resource))
        return resources.filter { allowed.contains($0) }
    }

    // MARK: Logout and metadata

    /// What `logout` did.
    public struct LogoutOutcome: Sendable, Hashable {
        /// The logout page for the app to open (iOS), ending the MVPD's session too; nil on tvOS, where there is none,
        /// and when nobody was logged in.
        public let page: URL?
        /// The user had logged in through platform single sign-on: they must sign out in the system settings too
        /// (`VSA203`), or the next start signs them in again.
        public let platformSSO: Bool
        /// The service provider could not be told (the local tokens are gone all the same).
        public let serverError: AccessEnablerError?
    }

    /// `logout`: clears every local token, then ends the server-side session. A failure to reach the service
    /// provider does not undo the local logout: it is reported in ``LogoutOutcome/serverError``, and the logout page
    /// is still returned. Throws only when the token store cannot be written.
    public func logout() async throws(AccessEnablerError) -> LogoutOutcome {
        await acquire()
        defer { release() }
        var entitlements = try loadStored()
        let authentication = entitlements.authentication
        entitlements.authentication = nil
        entitlements.authorizations = [:]
        entitlements.selectedMVPD = nil
        pendingLogin = nil
        try save(entitlements)
        guard let authentication, let (client, _) = try? client(for: authentication.mvpd) else {
            return LogoutOutcome(page: nil, platformSSO: authentication?.platformSSO ?? false, serverError: nil)
        }
        var serverError: AccessEnablerError?
        do {
            try await client.logout(deviceID: entitlements.deviceID)
        } catch {
            serverError = error
        }
        let page = configuration.platform == .iOS
            ? await client.logoutURL(deviceID: entitlements.deviceID, redirectURL: configuration.redirectURL) : nil
        return LogoutOutcome(page: page, platformSSO: authentication.platformSSO, serverError: serverError)
    }

    /// `getMetadata`.
    public func metadata(_ request: MetadataRequest) async throws(AccessEnablerError) -> MetadataAnswer {
        let entitlements = try loadStored()
        switch request {
        case .deviceID:
            return MetadataAnswer(value: .string(entitlements.deviceID), encrypted: false)
        case .authenticationTTL:
            return MetadataAnswer(value: entitlements.authentication.map { .string(String($0.expires)) }, encrypted: false)
        case .authorizationTTL(let resource):
            return MetadataAnswer(value: entitlements.authorizations[resource].map { .string(String($0.expires)) }, encrypted: false)
        case .userMetadata(let key):
            guard let authentication = entitlements.authentication else {
                throw AccessEnablerError(.userNotAuthenticated, "user metadata needs an authentication")
            }
            let (client, _) = try client(for: authentication.mvpd)
            let document: UserMetadataDocument
            do {
                document = try UserMetadataDocument(jsonText: try await client.userMetadata(deviceID: entitlements.deviceID))
            } catch let error as AccessEnablerError {
                throw error
            } catch {
                throw AccessEnablerError(.internalError, "the user metadata document is not valid")
            }
            switch document.entries[key] {
            case nil: return MetadataAnswer(value: nil, encrypted: false)
            case .plain(let value)?: return MetadataAnswer(value: value, encrypted: false)
            case .encrypted(let ciphertext)?:
                guard let decryptor = configuration.metadataDecryptor else { return MetadataAnswer(value: .string(ciphertext), encrypted: true) }
                do {
                    return MetadataAnswer(value: try decryptor.decryptValue(ciphertext), encrypted: false)
                } catch {
                    throw AccessEnablerError(.internalError, "the user metadata value \"\(key.prefix(64))\" does not decrypt with the configured key")
                }
            }
        }
    }

    // MARK: Platform single sign-on (the Apple SSO cookbook)

    /// The MVPDs the platform picker may show: boarded (`SUPPORTED`) or picker-only (`PICKER`), with a platform ID.
    /// Without a boarding status an MVPD does not take part in platform single sign-on.
    public var platformMVPDs: [MVPD] {
        mvpds.filter { $0.platformMappingID != nil && ($0.boardingStatus == "SUPPORTED" || $0.boardingStatus == "PICKER") }
    }

    private func isSupportedForSSO(_ mvpd: MVPD) -> Bool { mvpd.enablePlatformServices && mvpd.boardingStatus == "SUPPORTED" }

    /// The silent exchange of `setRequestor` and `checkAuthentication`: when the app may read the TV-provider account,
    /// a provider is signed in, boarded and offered, its SAML response is exchanged for an authentication, with no
    /// UI. Returns the authentication (when one was made) and the advanced statuses to report (`VSA403`, `VSA404`,
    /// `APPL_ERROR`).
    public func silentPlatformSSO() async -> (token: AuthenticationToken?, statuses: [AdvancedStatus]) {
        await acquire()
        defer { release() }
        guard let account = configuration.tvProviderAccount, !platformMVPDs.isEmpty else { return (nil, []) }
        // An authenticated user needs no exchange, and hears nothing about the platform's permission.
        if (try? loadStored().authentication) != nil { return (nil, []) }
        switch await account.accessStatus(prompt: false) {
        case .denied: return (nil, [.permissionDenied])
        case .undetermined: return (nil, [.permissionUndetermined])
        case .failed(let details): return (nil, [.frameworkError(details)])
        case .granted: break
        }
        switch await account.accountMetadata(TVProviderMetadataRequest(), presenter: SilentPresenter()) {
        case .account(let providerID, _):
            guard let mvpd = mvpds.first(where: { $0.platformMappingID == providerID }), isSupportedForSSO(mvpd) else { return (nil, []) }
            do {
                return (try await exchange(mvpd, account: account), [])
            } catch {
                return (nil, [.frameworkError(error.message)])
            }
        case .failed(let message): return (nil, [.frameworkError(message)])
        case .notSignedIn, .otherProvider, .cancelled: return (nil, [])
        }
    }

    /// The result of `getAuthentication` on the platform-SSO path.
    public enum PlatformSSOOutcome: Sendable, Hashable {
        /// The provider's SAML response was exchanged: authenticated.
        case authenticated(AuthenticationToken)
        /// Back to the classic flow (`displayProviderDialog`), with the advanced status that caused it.
        case fallback(AdvancedStatus?, [MVPD])
        /// A picker-only provider was picked: it is selected (silently) and its login starts.
        case login(MVPD, LoginStep)
    }

    /// `getAuthentication` (with the platform's `TV_PROVIDERS` / `FEATURED_TV_PROVIDERS` filter, MVPD IDs) when the
    /// requestor has platform MVPDs: the platform picker, then the exchange, a silent provider selection, or the
    /// classic flow with `N003`, `N004`, `N005`, `VSA403`, `VSA404` or `VSA503`.
    public func authenticateWithPlatformSSO(providers: [String]? = nil, featured: [String] = [],
                                            presenter: any TVProviderDialogPresenter) async throws(AccessEnablerError) -> PlatformSSOOutcome {
        await acquire()
        defer { release() }
        guard let account = configuration.tvProviderAccount, !platformMVPDs.isEmpty else { return .fallback(nil, mvpds) }
        pendingLogin = nil
        switch await account.accessStatus(prompt: true) {
        case .denied: return .fallback(.permissionDenied, mvpds)
        case .undetermined: return .fallback(.permissionUndetermined, mvpds)
        case .failed(let details): return .fallback(.metadataFailed(details), mvpds)
        case .granted: break
        }
        // The filter keeps its order and drops what the picker cannot show.
        let candidates = (providers ?? platformMVPDs.map(\.id)).compactMap { id in platformMVPDs.first { $0.id == id } }
        let featuredIDs = featured.compactMap { id in candidates.first { $0.id == id }?.platformMappingID }
        let request = TVProviderMetadataRequest(providerIdentifiers: candidates.compactMap(\.platformMappingID),
                                                featuredProviderIdentifiers: featuredIDs, isInterruptionAllowed: true)
        switch await account.accountMetadata(request, presenter: presenter) {
        case .otherProvider: return .fallback(.otherProvider, mvpds)
        case .cancelled, .notSignedIn: return .fallback(.pickerCancelled, mvpds)
        case .failed(let message): return .fallback(.metadataFailed(message), mvpds)
        case .account(let providerID, _):
            guard let mvpd = candidates.first(where: { $0.platformMappingID == providerID }) else {
                return .fallback(.unsupportedProvider, mvpds)
            }
            guard isSupportedForSSO(mvpd) else {
                return .login(mvpd, try await selectProviderLocked(mvpd.id, data: [:]))
            }
            // A failed exchange falls back to the classic flow, as a failed metadata request does.
            do {
                return .authenticated(try await exchange(mvpd, account: account))
            } catch {
                return .fallback(.metadataFailed(error.message), mvpds)
            }
        }
    }

    /// The token exchange: a profile request, the framework's SAML response for it, `POST /api/v1/tokens/authn`, then
    /// the authentication token, stored.
    private func exchange(_ mvpd: MVPD, account: any TVProviderAccountProvider) async throws(AccessEnablerError) -> AuthenticationToken {
        let (client, _) = try client(for: mvpd.id)
        var entitlements = try loadStored()
        let deviceType = configuration.platform.rawValue
        let payload = try await client.profileRequest(mvpd: mvpd.id, deviceID: entitlements.deviceID, deviceType: deviceType)
        let request = TVProviderMetadataRequest(providerIdentifiers: mvpd.platformMappingID.map { [$0] } ?? [],
                                                attributeNames: mvpd.requiredMetadataFields, verificationToken: payload)
        guard case .account(_, let samlResponse?) = await account.accountMetadata(request, presenter: SilentPresenter()) else {
            throw AccessEnablerError(.platformSSO, "the single-sign-on framework gave no SAML response")
        }
        try await client.exchange(deviceID: entitlements.deviceID, mvpd: mvpd.id, deviceType: deviceType, samlResponse: samlResponse)
        guard let token = try await client.authenticationToken(deviceID: entitlements.deviceID, platformSSO: true) else {
            throw AccessEnablerError(.genericAuthentication, "the token exchange left no authentication")
        }
        entitlements.authentication = token
        entitlements.authorizations = [:]
        entitlements.selectedMVPD = mvpd
        try save(entitlements)
        return token
    }
}

/// A presenter for requests that must not show UI.
struct SilentPresenter: TVProviderDialogPresenter {
    func present(_ dialog: TVProviderDialog) async {}
    func dismiss(_ dialog: TVProviderDialog) async {}
}
