import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request of the flow layer.
public struct EntitlementHTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: redirects are not followed, so a 302 arrives as such.
public struct EntitlementHTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// How the flow layer reaches a service provider. The default, ``URLSessionTransport``, suits apps; tests inject
/// failures (a provider that is down, slow, answers 500 or malformed JSON) through their own transport.
public protocol EntitlementTransport: Sendable {
    /// Sends `request`; throws only when no HTTP response arrived (connection refused, timeout).
    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse
}

/// ``EntitlementTransport`` on URLSession: an ephemeral session (no cookies, no cache), a timeout per request, and no
/// automatic redirects.
public final class URLSessionTransport: EntitlementTransport, Sendable {
    private let session: URLSession
    public let timeout: TimeInterval

    /// - Parameter timeout: seconds for each request (15 by default).
    public init(timeout: TimeInterval = 15) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        self.timeout = timeout
    }

    public func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return EntitlementHTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    deinit { session.invalidateAndCancel() }
}

/// Refuses redirects so that the caller sees each one.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
