import Foundation
import TVEConcurrency
import TVECrypto
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``EntitlementTransport`` on URLSession: an ephemeral session (no cookies, no cache), no automatic redirects, an
/// overall deadline per request (connection, headers and the whole body: a server that drips its answer is cut off)
/// and a limit on the response body, enforced while it arrives (a larger answer is abandoned, never held whole).
public final class URLSessionTransport: EntitlementTransport, Sendable {
    private let session: URLSession
    private let pending: PendingRequests
    /// Seconds each request may take from start to the last byte (15 by default).
    public let timeout: TimeInterval
    /// The largest response body accepted, in bytes (4 MiB by default).
    public let maximumResponseBytes: Int

    /// - Parameters:
    ///   - timeout: seconds for each request, from start to the last byte of the body.
    ///   - maximumResponseBytes: the largest body accepted; a larger one fails the request as soon as it is seen.
    public init(timeout: TimeInterval = 15, maximumResponseBytes: Int = 4 << 20) {
        let configuration = URLSessionConfiguration.ephemeral
        // URLSession's timeouts are backstops, later than the transport's own deadline (see send).
        configuration.timeoutIntervalForRequest = max(0.001, timeout) + 5
        configuration.timeoutIntervalForResource = max(0.001, timeout) + 5
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        pending = PendingRequests()
        session = URLSession(configuration: configuration, delegate: pending, delegateQueue: nil)
        self.timeout = max(0.001, timeout)
        self.maximumResponseBytes = max(0, maximumResponseBytes)
    }

    public func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        // URLSession's own timeout is only a backstop, later than the transport's deadline: the caller always gets the
        // deadline's error, never a race between the two (seen under load as a bare NSURLErrorDomain -1001).
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout + 5)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: urlRequest)
        let identifier = task.taskIdentifier
        let pending = self.pending
        let limit = maximumResponseBytes
        let timeout = self.timeout
        let host = request.url.host ?? "the service provider"
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<EntitlementHTTPResponse, any Error>) in
                pending.register(identifier, task: task, limit: limit, continuation: continuation)
                if Task.isCancelled {
                    pending.abandon(identifier, CancellationError())
                    return
                }
                task.resume()
                // The deadline holds only the identifier: a finished request is not kept alive until it passes.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    pending.abandon(identifier, AccessEnablerError(.internalError, "no complete answer from \(host) within \(timeout) s"))
                }
            }
        } onCancel: {
            pending.abandon(identifier, CancellationError())
        }
    }

    deinit { session.invalidateAndCancel() }
}

/// The session's delegate: collects each task's body up to its limit, refuses redirects so that the caller sees each
/// one, and resumes each caller exactly once (answer, error, limit, deadline or cancellation, whichever comes first).
private final class PendingRequests: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        let task: URLSessionDataTask
        let continuation: CheckedContinuation<EntitlementHTTPResponse, any Error>
        let limit: Int
        var response: HTTPURLResponse?
        var body = Data()
    }

    private let entries = Locked<[Int: Entry]>([:])

    func register(
        _ identifier: Int, task: URLSessionDataTask, limit: Int, continuation: CheckedContinuation<EntitlementHTTPResponse, any Error>
    ) {
        entries.withLock { $0[identifier] = Entry(task: task, continuation: continuation, limit: limit) }
    }

    /// Ends the request with `result` unless it has ended already; returns its task when this call ended it.
    @discardableResult
    func finish(_ identifier: Int, _ result: Result<EntitlementHTTPResponse, any Error>) -> URLSessionDataTask? {
        guard let entry = entries.withLock({ $0.removeValue(forKey: identifier) }) else { return nil }
        entry.continuation.resume(with: result)
        return entry.task
    }

    /// Ends the request with `error` (deadline, limit, cancellation) unless it has ended already, and stops its task.
    func abandon(_ identifier: Int, _ error: any Error) {
        finish(identifier, .failure(error))?.cancel()
    }

    private func tooLarge(_ limit: Int) -> AccessEnablerError {
        AccessEnablerError(.internalError, "the service provider's answer is over \(limit) bytes")
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let identifier = dataTask.taskIdentifier
        let limit = entries.withLock { entries -> Int? in
            entries[identifier]?.response = response as? HTTPURLResponse
            return entries[identifier]?.limit
        }
        if let limit, response.expectedContentLength > Int64(limit) {
            // FoundationNetworking ignores the disposition: the task itself is cancelled.
            abandon(identifier, tooLarge(limit))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let identifier = dataTask.taskIdentifier
        let overLimit = entries.withLock { entries -> Int? in
            guard var entry = entries[identifier] else { return nil }
            guard entry.body.count + data.count <= entry.limit else { return entry.limit }
            entry.body.append(data)
            entries[identifier] = entry
            return nil
        }
        if let overLimit { abandon(identifier, tooLarge(overLimit)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let identifier = task.taskIdentifier
        let entry = entries.withLock { $0[identifier] }
        guard let entry else { return }
        if let error {
            finish(identifier, .failure(error))
        } else if let http = entry.response ?? (task.response as? HTTPURLResponse) {
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
            finish(identifier, .success(EntitlementHTTPResponse(status: http.statusCode, headers: headers, body: entry.body)))
        } else {
            finish(identifier, .failure(URLError(.badServerResponse)))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
