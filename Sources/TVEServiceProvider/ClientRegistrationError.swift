import HTTPTypes
import Hummingbird
import TVEPassAPI

/// A client-registration error, in the package's one error shape (swift-certificates' `CertificateError`): its HTTP
/// ``status``, a stable OAuth ``code`` (`invalid_request`, `invalid_client`, …), a ``reason``, and the ``file`` and
/// ``line`` it was made on; equal on the code. Answered in the OAuth shape `{"error", "error_description"}`.
struct ClientRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The OAuth error codes (RFC 6749 §5.2, RFC 7591 §3.2.2) the registration answers: the wire code is
    /// ``rawValue``, answered as it is.
    struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        init(stringLiteral value: String) { self.rawValue = value }
        var description: String { rawValue }

        /// The request is malformed (body, form, size).
        static let invalidRequest = Code(rawValue: "invalid_request")
        /// Unknown client or wrong secret.
        static let invalidClient = Code(rawValue: "invalid_client")
        /// The grant type is not `client_credentials`.
        static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        /// The software statement is not an RS256 JWT.
        static let invalidSoftwareStatement = Code(rawValue: "invalid_software_statement")
        /// The software statement does not verify under the configured key, or its claims are refused.
        static let unapprovedSoftwareStatement = Code(rawValue: "unapproved_software_statement")
        /// A redirect URI that is refused.
        static let invalidRedirectURI = Code(rawValue: "invalid_redirect_uri")
        /// A table is full: too many clients or tokens.
        static let temporarilyUnavailable = Code(rawValue: "temporarily_unavailable")
        /// The service provider failed.
        static let serverError = Code(rawValue: "server_error")
    }

    /// The HTTP status of the answer.
    var status: HTTPResponse.Status { backing.status }
    /// The stable OAuth code; two errors are equal when their codes are.
    var code: Code { backing.code }
    /// What was wrong, sent as `error_description`; never a secret.
    var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    var line: UInt { backing.line }

    private let backing: Backing

    /// An error of the OAuth code `code`, answered with `status`, made at `file`:`line` (the caller's by default).
    init(status: HTTPResponse.Status, error code: Code, description reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(status: status, code: code, reason: reason, file: file, line: line)
    }

    /// An error of the wire code `code`, answered with `status`, made at `file`:`line` (the caller's by default).
    init(status: HTTPResponse.Status, error code: String, description reason: String, file: String = #fileID, line: UInt = #line) {
        self.init(status: status, error: Code(rawValue: code), description: reason, file: file, line: line)
    }

    /// The answer: the OAuth error body, never the file and line.
    var response: Response { Response.json(status, PassAPI.OAuthError(error: code.rawValue, errorDescription: reason)) }

    /// `ClientRegistrationError.code: reason (file:line)`: for logs and diagnosis.
    var description: String { "ClientRegistrationError.\(code): \(reason) (\(file):\(line))" }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    func hash(into hasher: inout Hasher) { hasher.combine(code) }

    private final class Backing: Sendable {
        let status: HTTPResponse.Status
        let code: Code
        let reason: String
        let file: String
        let line: UInt

        init(status: HTTPResponse.Status, code: Code, reason: String, file: String, line: UInt) {
            self.status = status
            self.code = code
            self.reason = reason
            self.file = file
            self.line = line
        }
    }
}
