import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVEPassAPI

/// An error answer of the local service provider's REST API v1, in the legacy shape `{status, message, details}` or,
/// when ``ServiceProviderConfiguration/enhancedErrors`` is on, the enhanced one
/// `{action, status, code, message, details, helpUrl, trace}` (FORMATS.md §7). The `code` values are
/// Adobe's REST v1 enhanced codes where Adobe names one; messages never carry a secret.
///
/// The package's one error shape (after swift-certificates' `CertificateError`): equal and hashed on its ``code``, with
/// the ``file`` and ``line`` that made it for diagnosis. It is Hummingbird's `HTTPResponseError`: a route throws it and
/// it answers itself, in the shape its route group chose (`ErrorShapeMiddleware`; enhanced when none did).
public struct ServiceProviderError: Error, Sendable, Hashable, CustomStringConvertible, HTTPResponseError {
    /// What the client should do, as Adobe's enhanced errors say it.
    public typealias Action = PassAPI.ErrorAction

    /// The HTTP status code of the answer.
    public let httpStatus: Int
    /// The stable error code (`invalid_requestor`, `maximum_attempts_exceeded`, …); sent in the enhanced shape only.
    public let code: String
    /// A short title (`Bad request`, `Unknown MVPD`), sent in both shapes.
    public let message: String
    /// What was wrong, in words, when there is more to say; sent in both shapes.
    public let details: String?
    /// What the client should do next (`none`, `configuration`, `authentication`, `retry`, …); sent in the enhanced
    /// shape only.
    public let action: Action
    /// The file that made this error (`#fileID`), for diagnosis.
    public let file: String
    /// The line that made this error, for diagnosis.
    public let line: UInt
    /// Whether the answer takes the legacy shape (set by `ErrorShapeMiddleware` for REST API v1 without enhanced errors).
    var legacyShape = false

    /// An error answer; `details` is optional and must never carry a secret.
    public init(
        status: Int, code: String, message: String, details: String? = nil, action: Action, file: String = #fileID, line: UInt = #line
    ) {
        self.httpStatus = status
        self.code = code
        self.message = message
        self.details = details
        self.action = action
        self.file = file
        self.line = line
    }

    /// What was wrong, for logs and tests: the details, or the message when there are none.
    public var reason: String { details ?? message }

    /// `code: reason (file:line)`.
    public var description: String { "\(code): \(reason) (\(file):\(line))" }

    /// The HTTP status of the answer (Hummingbird's `HTTPResponseError`).
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: httpStatus) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The answer, in the shape its route group chose.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(enhanced: !legacyShape)
    }

    static let helpURL = "https://experienceleague.adobe.com/docs/pass/authentication/auth-features/error-reportn/enhanced-error-codes.html"

    /// The enhanced body of this error, with a fresh trace ID.
    var enhanced: PassAPI.EnhancedError {
        PassAPI.EnhancedError(
            action: action, status: httpStatus, code: code, message: message, details: details, helpURL: Self.helpURL,
            trace: UUID().uuidString.lowercased())
    }

    func response(enhanced: Bool) -> Response {
        enhanced
            ? Response.json(status, self.enhanced)
            : Response.json(status, PassAPI.LegacyError(status: httpStatus, message: message, details: details))
    }

    // The errors the service provider answers.
    static func badRequest(_ code: String, _ details: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(status: 400, code: code, message: "Bad request", details: details, action: .none, file: file, line: line)
    }
    static let unknownRequestor = Self(
        status: 400, code: "invalid_requestor", message: "Unknown requestor",
        details: "the requestor is not configured on this service provider", action: .configuration)
    static let unknownMVPD = Self(
        status: 400, code: "unknown_integration", message: "Unknown MVPD",
        details: "the MVPD does not serve this requestor", action: .configuration)
    static let missingDeviceID = badRequest("invalid_device_id", "deviceId is required (at most 256 bytes)")
    static let missingResource = badRequest("missing_resource", "resource is required")
    static let unauthorizedClient = Self(
        status: 401, code: "invalid_access_token_client_application", message: "Unauthorized",
        details: "a valid Authorization: Bearer access token, clientless signature or signed requestor ID is required",
        action: .applicationRegistration)
    static let notAuthenticated = Self(
        status: 403, code: "authentication_session_missing", message: "User not Authenticated Error",
        details: "no authentication for this device", action: .authentication)
    static let authenticationMissing = Self(
        status: 412, code: "authentication_session_missing", message: "User not Authenticated Error",
        details: "no authentication for this device", action: .authentication)
    static let authenticationNotFound = Self(
        status: 404, code: "authentication_session_missing", message: "Not Found",
        details: "no authentication for this device", action: .authentication)
    static let authenticationExpired = Self(
        status: 410, code: "authentication_session_expired", message: "Gone",
        details: "the authentication has expired", action: .authentication)
    static let authenticationExpiredPrecondition = Self(
        status: 412, code: "authentication_session_expired", message: "User not Authenticated Error",
        details: "the authentication has expired", action: .authentication)
    static let authorizationNotFound = Self(
        status: 404, code: "authorization_not_found", message: "Not Found",
        details: "no authorization for this resource", action: .authorization)
    static let authorizationExpired = Self(
        status: 410, code: "authorization_expired", message: "Gone",
        details: "the authorization has expired", action: .authorization)
    static func denied(_ message: String) -> Self {
        .init(status: 403, code: "authorization_denied_by_mvpd", message: "User not Authorized Error", details: message, action: .none)
    }
    static let unknownResource = Self(
        status: 403, code: "authorization_denied_by_requestor", message: "User not Authorized Error",
        details: "the requestor does not offer this resource", action: .none)
    static let throttled = Self(
        status: 429, code: "too_many_requests", message: "Too Many Requests",
        details: "slow down: 1 request per second per device, bursts of 10", action: .retry)
    static let throttledV2 = Self(
        status: 429, code: "maximum_attempts_exceeded", message: "Too Many Requests",
        details: "slow down: 1 request per second per device, bursts of 10", action: .retry)
    static let tooManyAttempts = Self(
        status: 429, code: "maximum_attempts_exceeded", message: "Too Many Requests",
        details: "too many failed attempts; wait and try again later", action: .retry)
    static let busy = Self(
        status: 503, code: "internal_error", message: "Service Unavailable",
        details: "the service provider's state is full; try again later", action: .retry)
    static let registrationCodeNotFound = Self(
        status: 404, code: "invalid_parameter", message: "Registration code not found",
        details: "the registration code is unknown or expired", action: .authentication)
    static let internalError = Self(status: 500, code: "internal_error", message: "Internal Error", details: nil, action: .retry)
}

/// The error shape of a route group: every ``ServiceProviderError`` its routes throw answers itself, in the legacy shape
/// when `enhanced` is false; any other error becomes ``ServiceProviderError/internalError`` (no detail leaves the
/// server). The answer is made here, inside the group, so that the group's other middlewares (security headers, the
/// request log) see it as they see any answer.
struct ErrorShapeMiddleware<Context: RequestContext>: RouterMiddleware {
    let enhanced: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch var error as ServiceProviderError {
            error.legacyShape = !enhanced
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch {
            var error = ServiceProviderError.internalError
            error.legacyShape = !enhanced
            return try error.response(from: request, context: context)
        }
    }
}
