import Foundation

/// The flow layer's one error type, in the package's one error shape (swift-certificates' `CertificateError`): equal
/// only on its ``code``, the AccessEnabler constant the delegate API reports (the seeds' error codes and Adobe's
/// advanced codes); ``message`` (also ``reason``) says what went wrong and where, never a secret; ``file`` and
/// ``line`` say where the error was made.
public struct AccessEnablerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // The original callbacks' codes.
        // The seeds name these constants but not their values; each value is its name (a documented choice).
        /// `USER_NOT_AUTHENTICATED_ERROR`
        public static let userNotAuthenticated = Code("USER_NOT_AUTHENTICATED_ERROR")
        /// `PROVIDER_NOT_SELECTED_ERROR`: the app passed nil to `setSelectedProvider`.
        public static let providerNotSelected = Code("PROVIDER_NOT_SELECTED_ERROR")
        /// `PROVIDER_NOT_AVAILABLE_ERROR`: the MVPD is not offered to this requestor.
        public static let providerNotAvailable = Code("PROVIDER_NOT_AVAILABLE_ERROR")
        /// `GENERIC_AUTHENTICATION_ERROR`: the authentication flow failed (network, service provider).
        public static let genericAuthentication = Code("GENERIC_AUTHENTICATION_ERROR")
        /// `INTERNAL_AUTHENTICATION_ERROR`: the service provider's answer made no sense.
        public static let internalAuthentication = Code("INTERNAL_AUTHENTICATION_ERROR")
        /// `GENERIC_AUTHORIZATION_ERROR`
        public static let genericAuthorization = Code("GENERIC_AUTHORIZATION_ERROR")
        /// `INTERNAL_AUTHORIZATION_ERROR`
        public static let internalAuthorization = Code("INTERNAL_AUTHORIZATION_ERROR")
        /// `USER_NOT_AUTHORIZED_ERROR`: the MVPD denied the resource (its message is in ``AccessEnablerError/message``).
        public static let userNotAuthorized = Code("USER_NOT_AUTHORIZED_ERROR")
        /// `INTERNAL_ERROR`
        public static let internalError = Code("INTERNAL_ERROR")
        // Advanced codes (FORMATS.md §7).
        /// The requestor is not configured on any service provider.
        public static let invalidRequestor = Code("CFG400")
        /// The service provider throttled the requests.
        public static let throttled = Code("CFG429")
        /// A service provider answered 5xx or could not be reached during setRequestor.
        public static let configurationUnavailable = Code("CFG500")
        /// The app is not registered or its software statement is invalid.
        public static let notRegistered = Code("R400")
        /// The access token could not be obtained or was refused.
        public static let accessTokenError = Code("R401")
        /// No authentication token for the session.
        public static let authenticationNotFound = Code("N130")
        /// The MVPD denied authorization.
        public static let mvpdDenied = Code("Z100")
        /// Too many resources in one preauthorization.
        public static let tooManyResources = Code("P100")
        /// The local token store could not be read or written.
        public static let storageError = Code("LS011")
        /// The platform single-sign-on framework failed (details in the message).
        public static let platformSSO = Code("APPL_ERROR")
        /// A TempPass has run out (REST API v2 `temporary_access_*`).
        public static let tempPassExpired = Code("N111")
    }

    /// What went wrong, as the AccessEnabler constant the delegate API reports (see ``Code``); two errors are equal
    /// when their codes are.
    public var code: Code { backing.code }
    /// What went wrong and where, in words (for a denial, the MVPD's message); never a secret.
    public var message: String { backing.message }
    /// What went wrong and where: the ``message``, under the name every error of the package gives it.
    public var reason: String { backing.message }
    /// The HTTP status the service provider answered, when one did.
    public var httpStatus: Int? { backing.httpStatus }
    /// REST API v2: the Enhanced Error code the service provider gave (`authorization_denied_by_mvpd`, ...).
    public var enhancedCode: String? { backing.enhancedCode }
    /// REST API v2: the advanced status the delegate API sends with the failure (``EnhancedErrorMapping/Entry/status``).
    public var advancedStatus: String? { backing.advancedStatus }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    /// An error with no Enhanced Error: `code`, `message` and the HTTP status the service provider answered, if any,
    /// made at `file`:`line` (the caller's by default).
    public init(_ code: Code, _ message: String, httpStatus: Int? = nil, file: String = #fileID, line: UInt = #line) {
        self.init(code, message, httpStatus: httpStatus, enhancedCode: nil, advancedStatus: nil, file: file, line: line)
    }

    /// An error from a REST API v2 Enhanced Error, made at `file`:`line` (the caller's by default).
    public init(
        _ code: Code, _ message: String, httpStatus: Int?, enhancedCode: String?, advancedStatus: String?, file: String = #fileID,
        line: UInt = #line
    ) {
        backing = Backing(
            code: code, message: message, httpStatus: httpStatus, enhancedCode: enhancedCode, advancedStatus: advancedStatus, file: file,
            line: line)
    }

    /// `AccessEnablerError.code: message (file:line)`: for logs and diagnosis. Show users ``message``.
    public var description: String { "AccessEnablerError.\(code): \(message) (\(file):\(line))" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error's storage: one reference, so that the error stays one word wide however much it records.
    private final class Backing: Sendable {
        let code: Code
        let message: String
        let httpStatus: Int?
        let enhancedCode: String?
        let advancedStatus: String?
        let file: String
        let line: UInt

        init(code: Code, message: String, httpStatus: Int?, enhancedCode: String?, advancedStatus: String?, file: String, line: UInt) {
            self.code = code
            self.message = message
            self.httpStatus = httpStatus
            self.enhancedCode = enhancedCode
            self.advancedStatus = advancedStatus
            self.file = file
            self.line = line
        }
    }
}
