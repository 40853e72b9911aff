import Foundation
import HTTPTypes
import OpenAPIRuntime

extension PassAPIv2 {
    /// The header values of Adobe's v2 headers as Adobe's servers read them.
    ///
    /// The generated client percent-encodes header parameters (`fingerprint%20…`, `%2B`, `%3D`), as OpenAPI's
    /// simple style allows; Adobe's headers are plain text (`fingerprint <Base64>`, Base64 JSON). This client
    /// middleware undoes that encoding for ``rawHeaderNames`` before a request leaves. It also keeps the generated
    /// code alive on an answer whose `Content-Type` repeats a parameter name ignoring case, which traps
    /// swift-openapi-runtime 1.13.4 (see ``ContentTypeMiddleware``): a hostile or broken server could otherwise end the
    /// app. Add it to every generated ``Client``.
    public struct RawHeaderMiddleware: ClientMiddleware {
        /// The headers it restores.
        public static let rawHeaderNames = [
            DeviceIdentifier.headerName, DeviceInfo.headerName, PartnerFrameworkStatus.headerName, TempPassIdentity.headerName,
            "AP-Visitor-Identifier", "Adobe-Subject-Token", "AD-Service-Token",
        ]

        /// Creates the middleware; it has no settings.
        public init() {}

        public func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            for name in Self.rawHeaderNames {
                guard let field = HTTPField.Name(name), let value = request.headerFields[field] else { continue }
                request.headerFields[field] = PassAPIv2.headerValue(value)
            }
            var (response, responseBody) = try await next(request, body, baseURL)
            if let value = response.headerFields[.contentType], let safe = ContentTypeMiddleware.withoutRepeatedParameters(value) {
                response.headerFields[.contentType] = safe
            }
            return (response, responseBody)
        }
    }

    /// A header value as sent: percent-decoded when the sender percent-encoded it (the generated client's form),
    /// otherwise as it is.
    public static func headerValue(_ value: String) -> String {
        guard value.contains("%") else { return value }
        return value.removingPercentEncoding ?? value
    }
}
