import Foundation

/// The flow layer's one error type. ``code`` is the AccessEnabler constant the delegate API reports (the seeds'
/// error codes and Adobe's advanced codes); ``message`` says what went wrong and where, never a secret.
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

    /// What went wrong, as the AccessEnabler constant the delegate API reports (see ``Code``).
    public let code: Code
    /// What went wrong and where, in words (for a denial, the MVPD's message); never a secret.
    public let message: String
    /// The HTTP status the service provider answered, when one did.
    public let httpStatus: Int?
    /// REST API v2: the Enhanced Error code the service provider gave (`authorization_denied_by_mvpd`, ...).
    public let enhancedCode: String?
    /// REST API v2: the advanced status the delegate API sends with the failure (``EnhancedErrorMapping/Entry/status``).
    public let advancedStatus: String?

    /// An error with no Enhanced Error: `code`, `message` and the HTTP status the service provider answered, if any.
    public init(_ code: Code, _ message: String, httpStatus: Int? = nil) {
        self.init(code, message, httpStatus: httpStatus, enhancedCode: nil, advancedStatus: nil)
    }

    /// An error from a REST API v2 Enhanced Error.
    public init(_ code: Code, _ message: String, httpStatus: Int?, enhancedCode: String?, advancedStatus: String?) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.enhancedCode = enhancedCode
        self.advancedStatus = advancedStatus
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
