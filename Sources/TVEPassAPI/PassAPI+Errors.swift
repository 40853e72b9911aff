extension PassAPI {
    /// What the client should do, as Adobe's enhanced errors say it.
    public enum ErrorAction: String, Sendable, Hashable, Codable {
        case none, configuration, applicationRegistration = "application-registration", authentication, authorization, retry
    }

    /// The legacy error body of the REST API v1: `{status, message, details}`.
    public struct LegacyError: Sendable, Hashable, Codable {
        public var status: Int
        public var message: String
        public var details: String?

        public init(status: Int, message: String, details: String?) {
            self.status = status
            self.message = message
            self.details = details
        }
    }

    /// The enhanced error body (FORMATS.md §7): `{action, status, code, message, details, helpUrl, trace}`.
    public struct EnhancedError: Sendable, Hashable, Codable {
        public var action: ErrorAction?
        public var status: Int
        public var code: String
        public var message: String
        public var details: String?
        public var helpURL: String?
        public var trace: String?

        enum CodingKeys: String, CodingKey {
            case action, status, code, message, details, trace
            case helpURL = "helpUrl"
        }

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
        public var error: String
        public var errorDescription: String

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
        public var code: String?
        public var message: String?
        public var details: String?
        public var error: String?
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
