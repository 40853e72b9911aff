/// The platform's single-sign-on framework (Apple's Video Subscriber Account), as a protocol the app implements;
/// the logic of the Apple SSO cookbook lives in the flow layer and is testable without it.
public protocol TVProviderAccountProvider: Sendable {
    /// The access status; with `prompt`, the framework may ask the user.
    func accessStatus(prompt: Bool) async -> TVProviderAccessStatus
    /// A metadata request. When it is interactive and the framework needs its picker, it calls `presenter` to show and
    /// hide it.
    func accountMetadata(_ request: TVProviderMetadataRequest, presenter: any TVProviderDialogPresenter) async -> TVProviderMetadataResult
    /// The TV-provider account the system is signed in to, read without any UI (Apple's `VSAccountMetadata`:
    /// `accountProviderIdentifier` and `authenticationExpirationDate`), or nil when none is signed in or the framework
    /// cannot tell. REST API v2 sends it in `AP-Partner-Framework-Status`. The default answers nil.
    func signedInAccount() async -> TVProviderAccountState?
}

extension TVProviderAccountProvider {
    /// No account information: `AP-Partner-Framework-Status` then names no provider session.
    public func signedInAccount() async -> TVProviderAccountState? { nil }
}

/// The account the platform's single-sign-on framework is signed in to.
public struct TVProviderAccountState: Sendable, Hashable {
    /// The framework's identifier of the TV provider (an MVPD's `platformMappingId`).
    public var providerIdentifier: String
    /// When the framework's authentication with the provider ends, in milliseconds since the epoch (nil: not known).
    public var expires: Int64?

    /// An account state; `expires` is in milliseconds since the epoch.
    public init(providerIdentifier: String, expires: Int64?) {
        self.providerIdentifier = providerIdentifier
        self.expires = expires
    }
}
