import Foundation
import HTTPTypes
import OpenAPIRuntime
import TVEConcurrency
import TVECrypto
import TVEPassAPIv2
import TVETokens

/// Adobe's service behaviour, handled once for every generated REST API v2 call (as swift-openapi-generator's
/// retrying-middleware example handles retries):
///
/// - `Authorization: Bearer` from the app's ``ClientCredentials`` on every call but the browser's `authenticate`;
/// - a 401 gets a new access token and the call is sent once more (the token expired, was revoked, or belongs to
///   another service provider: `invalid_access_token_service_provider`);
/// - a 429 is waited out as ``Throttling`` says (at least one second, at least `Retry-After`, doubling), then fails
///   with `CFG429`;
/// - any other answer of 400 or more becomes the ``AccessEnablerError`` of its Enhanced Error
///   (``EnhancedErrorMapping``), thrown before the generated client decodes it: the calls read success answers only.
struct V2ServiceMiddleware: ClientMiddleware {
    let credentials: ClientCredentials
    let clock: any MediaTokenClock
    let sleep: @Sendable (Duration) async -> Void

    /// The largest error body read.
    static let maximumErrorBytes = 64 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let what = Self.name(of: operationID)
        // The browser's route needs no token.
        let needsToken = operationID != Operations.StartAuthenticationUsingGET.id
        // A body that a retry can send again.
        var bytes: [UInt8]?
        if let body { bytes = try await [UInt8](collecting: body, upTo: EntitlementClientTransport.maximumRequestBytes) }
        var request = request
        var refreshed = false
        var throttling = Throttling()
        while true {
            if needsToken { request.headerFields[.authorization] = "Bearer " + (try await credentials.bearerToken()) }
            let (response, answer) = try await next(request, bytes.map { HTTPBody($0) }, baseURL)
            let status = response.status.code
            guard status >= 400 else { return (response, answer) }
            let information = await Self.errorInformation(answer)
            switch status {
            case 401 where needsToken && !refreshed:
                refreshed = true
                await credentials.invalidateAccessToken()
            case 429:
                guard let wait = throttling.wait(retryAfter: response.headerFields[.retryAfter], now: clock.nowMilliseconds) else {
                    throw throttling.error(what, enhancedCode: information?.code)
                }
                await sleep(wait)
            default:
                throw V2ServiceProviderClient.failure(information, status: status, what)
            }
        }
    }

    /// The Enhanced Error of an error answer, when its body is one (at most ``maximumErrorBytes``).
    static func errorInformation(_ body: HTTPBody?) async -> Components.Schemas.ErrorInformation? {
        guard let body, let bytes = try? await [UInt8](collecting: body, upTo: maximumErrorBytes) else { return nil }
        return try? JSONDecoder().decode(Components.Schemas.ErrorInformation.self, from: Data(bytes))
    }

    /// The short name of an operation in errors (its path in the REST API, without the values).
    static func name(of operationID: String) -> String {
        switch operationID {
        case Operations.HandleRequestUsingGET.id: "configuration"
        case Operations.CreateSessionUsingPOST.id: "sessions"
        case Operations.ResumeSessionUsingPOST.id, Operations.GetSessionStatusUsingGET1.id: "sessions/{code}"
        case Operations.GetProfilesUsingGET1.id, Operations.GetProfileForMvpdUsingGET.id, Operations.GetProfileForCodeUsingGET1.id:
            "profiles"
        case Operations.RetrieveAuthorizeDecisionsForMvpdUsingPOST.id: "authorize"
        case Operations.RetrievePreAuthorizeDecisionsForMvpdUsingPOST1.id: "preauthorize"
        case Operations.GetLogoutForMvpdUsingGET.id: "logout"
        case Operations.RetrieveVerificationTokenUsingPOST.id: "sessions/sso"
        case Operations.CreatePartnerProfileUsingPOST.id: "profiles/sso"
        default: String(operationID.prefix(80))
        }
    }
}

/// Adds the headers REST API v2 reads though its contract lists them on few operations (`AP-Visitor-Identifier` on
/// every call; a promotional TempPass's `AP-TempPass-Identity` on the calls about its MVPD, through
/// ``tempPassIdentity``), as given, after the generated client's encoding.
final class V2ExtraHeadersMiddleware: ClientMiddleware, Sendable {
    private let values = Locked<[String: String]>([:])

    /// Sends `value` as `name` from now on (nil: no longer).
    func set(_ name: String, _ value: String?) { values.withLock { $0[name] = value } }

    /// The `AP-TempPass-Identity` of the calls made in this task (about a promotional TempPass's MVPD only).
    @TaskLocal static var tempPassIdentity: String?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for (name, value) in values.withLock({ $0 }) {
            if let field = HTTPField.Name(name) { request.headerFields[field] = value }
        }
        if let identity = Self.tempPassIdentity, let field = HTTPField.Name(PassAPIv2.TempPassIdentity.headerName) {
            request.headerFields[field] = identity
        }
        return try await next(request, body, baseURL)
    }
}
