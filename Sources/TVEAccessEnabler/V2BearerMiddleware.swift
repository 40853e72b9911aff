import Foundation
import HTTPTypes
import OpenAPIRuntime
import TVECrypto
import TVEPassAPIv2

/// Adds `Authorization: Bearer` to every generated v2 request from the DCR client of a ``ServiceProviderClient``, and
/// after a 401 gets a new access token and tries once more (the token had expired or was revoked; if the client
/// credentials themselves are refused, the token request registers again).
struct V2BearerMiddleware: ClientMiddleware {
    let provider: ServiceProviderClient

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // The browser's route needs no token.
        guard operationID != "startAuthenticationUsingGET" else { return try await next(request, body, baseURL) }
        // A body the retry can send again.
        var bytes: [UInt8]?
        if let body { bytes = try await [UInt8](collecting: body, upTo: EntitlementClientTransport.maximumRequestBytes) }
        var request = request
        request.headerFields[.authorization] = "Bearer " + (try await provider.bearerToken())
        let first = try await next(request, bytes.map { HTTPBody($0) }, baseURL)
        guard first.0.status.code == 401 else { return first }
        await provider.invalidateAccessToken()
        request.headerFields[.authorization] = "Bearer " + (try await provider.bearerToken())
        return try await next(request, bytes.map { HTTPBody($0) }, baseURL)
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
