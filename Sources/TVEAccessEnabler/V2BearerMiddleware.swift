import Foundation
import HTTPTypes
import OpenAPIRuntime
import TVECrypto

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

/// Adds the headers REST API v2 reads on any call though its contract lists them on few (`AP-TempPass-Identity` of a
/// promotional TempPass, `AP-Visitor-Identifier`), as given, after the generated client's encoding.
final class V2ExtraHeadersMiddleware: ClientMiddleware, Sendable {
    private let values = Locked<[String: String]>([:])

    /// Sends `value` as `name` from now on (nil: no longer).
    func set(_ name: String, _ value: String?) { values.withLock { $0[name] = value } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for (name, value) in values.withLock({ $0 }) {
            if let field = HTTPField.Name(name) { request.headerFields[field] = value }
        }
        return try await next(request, body, baseURL)
    }
}
