/// An advanced status of the Apple SSO path (`status` callback).
public struct AdvancedStatus: Sendable, Hashable, CustomStringConvertible {
    /// How serious a status is.
    public enum Level: String, Sendable, Hashable {
        /// `info` for an event (`N003`, `N005`, `VSA203`, `REGCODE`); `warning` for a refusal, an unsupported
        /// provider or a logout the service provider could not be told of (`N004`, `VSA403`, `VSA404`); `error`
        /// for a failure (`VSA503`, `APPL_ERROR`, a failed call's code).
        case info, warning, error
    }
    /// The status code (`N003`, `VSA203`, `REGCODE`, ...), or the code of the error it reports.
    public let id: String
    /// How serious it is.
    public let level: Level
    /// What happened, in words; for `REGCODE`, the registration code to show.
    public let message: String
    /// More about it, when there is more: the framework's error for `APPL_ERROR`, the Enhanced Error code for a REST
    /// API v2 failure.
    public let details: String?

    /// A status. The flow layer's own are the static members below (``otherProvider``, ``registrationCode(_:)``, ...)
    /// and those it makes from errors.
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
    /// REST API v2 has no place for data the app gave (`getAuthentication:withData:` for an MVPD that is not a TempPass,
    /// `checkAuthorization:withData:`, `getAuthorization:withData:`, the `applicationProfile` option): they were not
    /// sent. Reported once per kind, naming the keys, never the values. **Choice:** TVEKit's own status, `DATA_NOT_SENT`.
    public static func dataNotSent(_ what: String, keys: [String]) -> AdvancedStatus {
        let names = keys.prefix(8).map { String($0.prefix(64)) }.joined(separator: ", ")
        return AdvancedStatus(
            id: "DATA_NOT_SENT", level: .warning, message: "REST API v2 has no place for \(what) (\(names)): not sent")
    }
    /// tvOS: show this registration code; the flow layer polls until it is used on a second screen.
    public static func registrationCode(_ code: String) -> AdvancedStatus {
        AdvancedStatus(id: "REGCODE", level: .info, message: code)
    }
}
