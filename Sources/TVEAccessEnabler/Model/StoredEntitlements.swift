/// What the flow layer keeps between calls and, with a ``FileTokenStore``, between runs: per requestor.
public struct StoredEntitlements: Sendable, Hashable, Codable {
    /// The device ID (generated once, kept): REST API v1 sends it as it is, REST API v2 only its SHA-256 fingerprint.
    public var deviceID: String
    /// The device's authentication, or nil when there is none (once it expires, it goes with the authorizations).
    public var authentication: AuthenticationToken?
    /// Authorizations by resource.
    public var authorizations: [String: AuthorizationToken]
    /// The MVPD chosen for the current authentication.
    public var selectedMVPD: MVPD?
    /// The app's Dynamic Client Registration with each service provider (by credentials and service provider), kept
    /// across launches as Adobe's SDKs keep it: the service provider binds a device's authentication to the client
    /// that made it. The secret is stored as the tokens are (the file store writes 0600 files); never printed.
    public var clientRegistrations: [String: ClientRegistration]?
    /// A promotional TempPass's identity (`getAuthentication:withData:`), sent as `AP-TempPass-Identity` with every
    /// call about its MVPD while the pass lasts (REST API v2).
    public var tempPassIdentity: [String: String]?
    /// The MVPD whose server-side session a logout could not end (the device was offline): `setRequestor` ends it
    /// before anything else, and adopts no profile meanwhile.
    public var pendingLogout: String?

    /// The tokens of the device `deviceID`; none by default.
    public init(
        deviceID: String, authentication: AuthenticationToken? = nil, authorizations: [String: AuthorizationToken] = [:],
        selectedMVPD: MVPD? = nil
    ) {
        self.deviceID = deviceID
        self.authentication = authentication
        self.authorizations = authorizations
        self.selectedMVPD = selectedMVPD
    }

    /// The most authorizations kept; past it, those that expire soonest are dropped (they are fetched again when
    /// needed).
    public static let maximumAuthorizations = 100

    /// Keeps at most ``maximumAuthorizations`` authorizations, dropping those that expire soonest.
    public mutating func limitAuthorizations(to limit: Int = maximumAuthorizations) {
        guard authorizations.count > limit else { return }
        let kept = authorizations.sorted { ($0.value.expires, $0.key) > ($1.value.expires, $1.key) }.prefix(max(0, limit))
        authorizations = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }

    /// Drops what has expired at `now` (milliseconds).
    public mutating func prune(now: Int64) {
        if let authentication, authentication.expires <= now {
            self.authentication = nil
            authorizations = [:]
            tempPassIdentity = nil
        }
        authorizations = authorizations.filter { $0.value.expires > now }
    }
}

extension StoredEntitlements {
    /// Drops the authentication and the authorizations made with it.
    mutating func forgetAuthentication() {
        authentication = nil
        authorizations = [:]
        tempPassIdentity = nil
    }
}
