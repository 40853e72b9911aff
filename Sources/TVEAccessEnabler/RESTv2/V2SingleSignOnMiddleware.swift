import Foundation
import HTTPTypes
import OpenAPIRuntime
import TVEPassAPIv2

/// Adds the app's single-sign-on credential (``SingleSignOnCredential``) to every REST API v2 call but the browser's,
/// asked for afresh each time. A credential with a character a header cannot carry is not sent.
struct V2SingleSignOnMiddleware: ClientMiddleware {
    let credential: @Sendable () async -> SingleSignOnCredential?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if operationID != Operations.StartAuthenticationUsingGET.id, let credential = await credential(),
            credential.value.utf8.count <= 8192, credential.value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            let name = HTTPField.Name(credential.headerName)
        {
            request.headerFields[name] = credential.value
        }
        return try await next(request, body, baseURL)
    }
}
