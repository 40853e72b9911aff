import Foundation
import TVEAccessEnabler
import TVEConcurrency
import TVECrypto

/// A transport that remembers every request (and, in `urls`, every request URL).
final class RecordingTransport: EntitlementTransport {
    let inner: any EntitlementTransport
    let urls = Locked<[URL]>([])
    let requests = Locked<[EntitlementHTTPRequest]>([])
    init(_ inner: any EntitlementTransport = URLSessionTransport(timeout: 30)) { self.inner = inner }
    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        urls.withLock { $0.append(request.url) }
        requests.withLock { $0.append(request) }
        return try await inner.send(request)
    }

    /// The query items of the requests whose path ends with `suffix`.
    func queries(endingWith suffix: String) -> [[String: String]] {
        requests.withLock { $0 }.filter { $0.url.path.hasSuffix(suffix) }.map { request in
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }
    }
}

/// A transport that holds requests to paths starting with `path` while the gate is closed.
final class GatedTransport: EntitlementTransport {
    let inner = URLSessionTransport(timeout: 10)
    let path: String
    let closed = Locked(false)
    init(holding path: String) { self.path = path }
    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        while request.url.path.hasPrefix(path), closed.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        return try await inner.send(request)
    }
}
