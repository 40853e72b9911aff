import Foundation
import TVEPassAPI

/// Sending one request to a service provider and reading its answer, the same way for both REST APIs and client
/// registration: the transport's failures as ``AccessEnablerError``, and a size limit on the answer.
enum ServiceProviderAnswer {
    /// The largest response body read.
    static let maximumBodyBytes = 4 << 20

    /// Sends `request` through `transport`; `host` names the service provider in errors.
    static func send(_ request: EntitlementHTTPRequest, through transport: any EntitlementTransport, host: String?)
        async throws(AccessEnablerError) -> EntitlementHTTPResponse
    {
        let response: EntitlementHTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as AccessEnablerError {
            throw error  // the transport's deadline or size limit
        } catch is CancellationError {
            throw AccessEnablerError(.internalError, "the call to the service provider \(host ?? "?") was cancelled")
        } catch {
            throw AccessEnablerError(.internalError, "the service provider \(host ?? "?") cannot be reached")
        }
        guard response.body.count <= maximumBodyBytes else {
            throw AccessEnablerError(.internalError, "the service provider's answer is over \(maximumBodyBytes) bytes")
        }
        return response
    }

    /// The status and the service provider's message, for errors.
    static func describe(_ response: EntitlementHTTPResponse) -> String {
        var text = "HTTP \(response.status)"
        if let message = PassAPI.decode(PassAPI.ErrorBody.self, from: response.body)?.text { text += ": " + String(message.prefix(300)) }
        return text
    }
}

extension PlatformExchange {
    /// A platform's SAML response as the service provider takes it: whitespace runs collapsed, newlines removed,
    /// trimmed, Base64 when it is the XML itself.
    static func normalizedSAMLResponse(_ samlResponse: String) -> String {
        let normalized = samlResponse.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
            .split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return normalized.hasPrefix("<") ? Data(normalized.utf8).base64EncodedString() : normalized
    }
}
