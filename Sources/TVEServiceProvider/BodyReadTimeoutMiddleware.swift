import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVEPassAPI

/// Reads a request's body (at most `limit` bytes) within `timeout` before any handler sees it, so that a client that
/// pauses in the middle of a body cannot hold a connection open: its connection is closed. A body announced as larger
/// than the limit closes the connection at once, before a byte of it is read. (Hummingbird writes an answer only once
/// the request's body has arrived, so these clients get no answer: the connection ends.) Without a
/// ``ConnectionRequestContext`` such a request is answered 408 or 413 once its body has arrived.
struct BodyReadTimeoutMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Int
    let timeout: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Every method: a GET may carry a body too (a client could drip one to hold the connection).
        let connection = (context as? any ConnectionRequestContext)?.connection
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            connection?.close(promise: nil)
            return Self.refusal(.contentTooLarge, "the body is over \(limit) bytes")
        }
        let body = request.body
        let limit = self.limit
        let collector = Task { try await body.collect(upTo: limit) }
        let timer = Task {
            try await Task.sleep(for: timeout)
            collector.cancel()
            connection?.close(promise: nil)
        }
        defer { timer.cancel() }
        let buffer: ByteBuffer
        do {
            buffer = try await collector.value
        } catch {
            return timer.isCancelled || !collector.isCancelled
                ? Self.refusal(.contentTooLarge, "the body is over \(limit) bytes")
                : Self.refusal(.requestTimeout, "the body did not arrive within \(timeout)")
        }
        var request = request
        request.body = .init(buffer: buffer)
        return try await next(request, context)
    }

    static func refusal(_ status: HTTPResponse.Status, _ details: String) -> Response {
        var response = ServiceProviderError(
            status: status.code, code: "invalid_parameter", message: status.reasonPhrase, details: details, action: .none
        ).response(enhanced: true)
        response.headers[.connection] = "close"
        return response
    }
}
