import Foundation
import HTTPTypes
import OpenAPIRuntime

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
