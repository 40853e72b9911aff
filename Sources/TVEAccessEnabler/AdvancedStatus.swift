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
    /// Logged out after a platform-SSO login: the user must also sign out in the system settings (the iOS path).
    public static let signOutInSettings = signOutInSettings(on: .iOS)
    /// Logged out after a platform-SSO login: the user must also sign out in the system settings, named by their path
    /// on `platform` (iOS: Settings > TV Provider; tvOS: Settings > Users and Accounts > TV Provider).
    public static func signOutInSettings(on platform: EntitlementPlatform) -> AdvancedStatus {
        let path = platform == .tvOS ? "Settings > Users and Accounts > TV Provider" : "Settings > TV Provider"
        return AdvancedStatus(id: "VSA203", level: .info, message: "sign out of the TV provider in Settings too (\(path))")
    }
    /// tvOS: show this registration code; the flow layer polls until it is used on a second screen.
    public static func registrationCode(_ code: String) -> AdvancedStatus {
        AdvancedStatus(id: "REGCODE", level: .info, message: code)
    }
}
