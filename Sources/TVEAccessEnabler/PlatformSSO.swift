import Foundation

/// The user's permission for the app to read their TV-provider account (Apple's Video Subscriber Account access).
public enum TVProviderAccessStatus: Sendable, Hashable {
    case granted
    case denied
    case undetermined
    /// The framework could not be asked (the SDK reports `APPL_ERROR` with these details).
    case failed(String)
}

/// What the flow layer asks the platform's single-sign-on framework (a `VSAccountMetadataRequest`).
public struct TVProviderMetadataRequest: Sendable, Hashable {
    /// The SAML issuer the framework answers for (`channelIdentifier`).
    public var channelIdentifier: String
    /// When interactive: the providers the picker shows (platform identifiers, in order) and those it features.
    public var providerIdentifiers: [String]
    public var featuredProviderIdentifiers: [String]
    /// The SAML attributes to include (the MVPD's `requiredMetadataFields`).
    public var attributeNames: [String]
    /// The service provider's profile-request payload (`verificationToken`), when a SAML response is wanted.
    public var verificationToken: String?
    /// May the framework show its provider picker?
    public var isInterruptionAllowed: Bool

    public init(
        channelIdentifier: String = "https://saml.sp.auth.adobe.com", providerIdentifiers: [String] = [],
        featuredProviderIdentifiers: [String] = [], attributeNames: [String] = [], verificationToken: String? = nil,
        isInterruptionAllowed: Bool = false
    ) {
        self.channelIdentifier = channelIdentifier
        self.providerIdentifiers = providerIdentifiers
        self.featuredProviderIdentifiers = featuredProviderIdentifiers
        self.attributeNames = attributeNames
        self.verificationToken = verificationToken
        self.isInterruptionAllowed = isInterruptionAllowed
    }
}

/// The framework's answer.
public enum TVProviderMetadataResult: Sendable, Hashable {
    /// The account's provider (signed in, or just picked), with the SAML response when a verification token was given.
    case account(providerIdentifier: String, samlResponse: String?)
    /// No account is signed in (and no picker was allowed).
    case notSignedIn
    /// The user chose "Other TV Provider" in the picker (`N003`).
    case otherProvider
    /// The user cancelled the picker (`N005`).
    case cancelled
    /// The metadata request failed (`VSA503`), with the framework's message.
    case failed(String)
}

/// An opaque handle on the platform's provider picker, which the app presents and dismisses
/// (`presentTvProviderDialog` / `dismissTvProviderDialog`; a `UIViewController` on Apple platforms).
public struct TVProviderDialog: Sendable, Hashable {
    public let id: UUID
    /// What the app shows (on Apple platforms, the view controller the framework hands over).
    public let payload: String

    public init(id: UUID = UUID(), payload: String) {
        self.id = id
        self.payload = payload
    }
}

/// Presents and dismisses the platform's picker: the flow layer forwards these to the delegate.
public protocol TVProviderDialogPresenter: Sendable {
    func present(_ dialog: TVProviderDialog) async
    func dismiss(_ dialog: TVProviderDialog) async
}

/// The platform's single-sign-on framework (Apple's Video Subscriber Account), as a protocol the app implements;
/// the logic of the Apple SSO cookbook lives in the flow layer and is testable without it.
public protocol TVProviderAccountProvider: Sendable {
    /// The access status; with `prompt`, the framework may ask the user.
    func accessStatus(prompt: Bool) async -> TVProviderAccessStatus
    /// A metadata request. When it is interactive and the framework needs its picker, it calls `presenter` to show and
    /// hide it.
    func accountMetadata(_ request: TVProviderMetadataRequest, presenter: any TVProviderDialogPresenter) async -> TVProviderMetadataResult
}

/// An advanced status of the Apple SSO path (`status` callback).
public struct AdvancedStatus: Sendable, Hashable, CustomStringConvertible {
    public enum Level: String, Sendable, Hashable { case info, warning, error }
    public let id: String
    public let level: Level
    public let message: String
    public let details: String?

    public init(id: String, level: Level, message: String, details: String? = nil) {
        self.id = id
        self.level = level
        self.message = message
        self.details = details
    }

    public var description: String { "\(id): \(message)" }

    /// The user chose "Other TV Provider" in the platform picker.
    public static let otherProvider = AdvancedStatus(id: "N003", level: .info, message: "the user chose another TV provider")
    /// The user picked a provider this requestor does not support.
    public static let unsupportedProvider = AdvancedStatus(
        id: "N004", level: .warning, message: "the selected TV provider is not supported")
    /// The user cancelled the platform picker.
    public static let pickerCancelled = AdvancedStatus(id: "N005", level: .info, message: "the user cancelled the TV provider picker")
    /// The user denied the TV-provider permission.
    public static let permissionDenied = AdvancedStatus(id: "VSA403", level: .warning, message: "TV provider access is denied")
    /// The TV-provider permission is undetermined.
    public static let permissionUndetermined = AdvancedStatus(id: "VSA404", level: .warning, message: "TV provider access is undetermined")
    /// The metadata request failed.
    public static func metadataFailed(_ message: String) -> AdvancedStatus {
        AdvancedStatus(id: "VSA503", level: .error, message: String(message.prefix(500)))
    }
    /// The framework could not be reached.
    public static func frameworkError(_ details: String) -> AdvancedStatus {
        AdvancedStatus(
            id: "APPL_ERROR", level: .error, message: "the single-sign-on framework failed", details: String(details.prefix(500)))
    }
    /// Logged out after a platform-SSO login: the user must also sign out in the system settings.
    public static let signOutInSettings = AdvancedStatus(
        id: "VSA203", level: .info,
        message: "sign out of the TV provider in Settings too (Settings > TV Provider)")
    /// tvOS: show this registration code; the flow layer polls until it is used on a second screen.
    public static func registrationCode(_ code: String) -> AdvancedStatus {
        AdvancedStatus(id: "REGCODE", level: .info, message: code)
    }
}
