extension PassAPI {
    /// What the client should do, as Adobe's enhanced errors say it.
    public enum ErrorAction: String, Sendable, Hashable, Codable {
        /// An action of Adobe's enhanced errors, one of: `none` (nothing the client does fixes it: a bad request, an
        /// MVPD's denial), `configuration` (the requestor's or the MVPD's configuration must change),
        /// `application-registration` (the app must register again), `authentication` (the user must sign in),
        /// `authorization` (the user must be authorized for the resource) and `retry` (the same call may succeed later).
        case none, configuration, applicationRegistration = "application-registration", authentication, authorization, retry
    }

    /// The legacy error body of the REST API v1: `{status, message, details}`.
    public struct LegacyError: Sendable, Hashable, Codable {
        /// The HTTP status code.
        public var status: Int
        /// A short description of the error, such as `Unknown requestor`.
        public var message: String
        /// More about the error, such as the MVPD's message for a denial; nil when there is nothing more.
        public var details: String?

        /// Creates a legacy error body.
        public init(status: Int, message: String, details: String?) {
            self.status = status
            self.message = message
            self.details = details
        }
    }

    /// The enhanced error body (FORMATS.md §7): `{action, status, code, message, details, helpUrl, trace}`.
    public struct EnhancedError: Sendable, Hashable, Codable {
        /// What the client should do; nil when the body leaves it out.
        public var action: ErrorAction?
        /// The HTTP status code.
        public var status: Int
        /// The error code, such as `authorization_denied_by_mvpd` (FORMATS.md §7).
        public var code: String
        /// A readable explanation of ``PassAPI/EnhancedError/code``.
        public var message: String
        /// More about this occurrence, such as the MVPD's message for a denial; may be absent.
        public var details: String?
        /// The address of a page that documents the error (`helpUrl`).
        public var helpURL: String?
        /// An identifier of this occurrence, for support; the local service provider writes a fresh UUID.
        public var trace: String?

        enum CodingKeys: String, CodingKey {
            case action, status, code, message, details, trace
            case helpURL = "helpUrl"
        }

        /// Creates an enhanced error body.
        public init(
            action: ErrorAction?, status: Int, code: String, message: String, details: String?, helpURL: String?, trace: String?
        ) {
            self.action = action
            self.status = status
            self.code = code
            self.message = message
            self.details = details
            self.helpURL = helpURL
            self.trace = trace
        }
    }

    /// The OAuth-style error body of client registration: `{error, error_description}`.
    public struct OAuthError: Sendable, Hashable, Codable {
        /// The OAuth error code, such as `invalid_request` or `invalid_client`.
        public var error: String
        /// A readable description of the error (`error_description`).
        public var errorDescription: String

        /// Creates an OAuth-style error body.
        public init(error: String, errorDescription: String) {
            self.error = error
            self.errorDescription = errorDescription
        }

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    /// Any of the three error shapes, as a client reads it: every field optional.
    public struct ErrorBody: Sendable, Hashable, Decodable {
        /// The enhanced error's `code`; nil when absent or not a string.
        public var code: String?
        /// The `message` of a legacy or enhanced error; nil when absent or not a string.
        public var message: String?
        /// The `details` of a legacy or enhanced error; nil when absent or not a string.
        public var details: String?
        /// The OAuth `error`; nil when absent or not a string (Adobe's may be an object).
        public var error: String?
        /// The OAuth `error_description`; nil when absent or not a string.
        public var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case code, message, details, error
            case errorDescription = "error_description"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // A field of another type (Adobe's `error` may be an object) is read as absent.
            code = try? container.decodeIfPresent(String.self, forKey: .code)
            message = try? container.decodeIfPresent(String.self, forKey: .message)
            details = try? container.decodeIfPresent(String.self, forKey: .details)
            error = try? container.decodeIfPresent(String.self, forKey: .error)
            errorDescription = try? container.decodeIfPresent(String.self, forKey: .errorDescription)
        }

        /// The most specific message: `details`, `message`, `error_description`, then `error`.
        public var text: String? { details ?? message ?? errorDescription ?? error }
    }
}
