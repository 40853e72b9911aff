import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The flow layer's ``EntitlementTransport`` as the generated REST API v2 client's transport: the generated `Client`
/// (TVEPassAPIv2) runs over whatever transport the app configured (URLSession with its deadlines and size limits, or a
/// test's), so that v2 calls get the same limits and fault injection as v1 calls.
///
/// A request body is read up to ``maximumRequestBytes``; the answer's body is the transport's (already bounded by it).
public struct EntitlementClientTransport: ClientTransport {
    /// The flow layer's transport, which sends every request.
    public let transport: any EntitlementTransport
    /// The largest request body sent (a `SAMLResponse` is the largest v2 body).
    public static let maximumRequestBytes = 2 << 20

    /// Sends the generated client's requests through `transport`.
    public init(_ transport: any EntitlementTransport) {
        self.transport = transport
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        guard let url = Self.url(baseURL, request.path ?? "/") else {
            throw AccessEnablerError(.internalError, "the v2 request \(operationID) has no valid URL")
        }
        var headers: [String: String] = [:]
        for field in request.headerFields {
            // Header names repeat rarely in v2 requests; a repeat is joined as HTTP allows.
            headers[field.name.rawName] = headers[field.name.rawName].map { $0 + ", " + field.value } ?? field.value
        }
        var data: Data?
        if let body { data = Data(try await [UInt8](collecting: body, upTo: Self.maximumRequestBytes)) }
        let answer = try await transport.send(
            EntitlementHTTPRequest(method: request.method.rawValue, url: url, headers: headers, body: data))
        // HTTPTypes traps on a status outside 0...999: an app's own transport may hand anything over.
        guard (100...599).contains(answer.status) else {
            throw AccessEnablerError(.internalError, "the service provider answered an impossible HTTP status (\(answer.status))")
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        return (HTTPResponse(status: .init(code: answer.status), headerFields: fields), HTTPBody(answer.body))
    }

    /// `baseURL` with the request's path and query (`/{sp}/configuration?…`) after its own path.
    static func url(_ baseURL: URL, _ pathAndQuery: String) -> URL? {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + (pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery))
    }
}
