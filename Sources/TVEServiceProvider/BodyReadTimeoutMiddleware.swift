import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TVEPassAPI

/// Reads a request's body (at most `limit` bytes) within `timeout` before any handler sees it, so that a client that
/// pauses in the middle of a body cannot hold a connection open: its connection is closed. A body announced as larger
/// than the limit closes the connection at once, before a byte of it is read. (Hummingbird writes an answer only once
/// the request's body has arrived, so these clients get no answer: the connection ends.) Without a
/// ``ConnectionRequestContext`` such a request is answered 408 or 413 once its body has arrived.
///
/// The deadline covers the body only: once the body is in, the handler takes the time it takes and its answer is
/// written (a deadline that ran on would close the connection under a slow handler, its work going on unanswered).
/// ``ServiceProvider/addRoutes(to:)`` puts it on the router itself, so that it covers every route added after it and
/// a path that matches none: a body that no handler reads is otherwise drained by Hummingbird after the answer, with no
/// deadline.
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
        let race = BodyRace()
        let collector = Task { try await body.collect(upTo: limit) }
        let timer = Task {
            try await Task.sleep(for: timeout)
            // Only when the body has not arrived first: a body in time is never cut.
            guard race.settle(.deadlinePassed) else { return }
            collector.cancel()
            connection?.close(promise: nil)
        }
        let collected = await collector.result
        let inTime = race.settle(.bodyRead)
        timer.cancel()  // from here on, the handler's time is its own
        guard inTime else { return Self.refusal(.requestTimeout, "the body did not arrive within \(timeout)") }
        guard case .success(let buffer) = collected else { return Self.refusal(.contentTooLarge, "the body is over \(limit) bytes") }
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

/// Which came first, the body or its deadline: settled once, by the first to ask.
final class BodyRace: Sendable {
    enum Outcome: UInt8 {
        case pending, bodyRead, deadlinePassed
    }

    private let state = Atomic<UInt8>(Outcome.pending.rawValue)

    /// Settles the race on `outcome` when it is still open; true when `outcome` is the result.
    func settle(_ outcome: Outcome) -> Bool {
        let (exchanged, original) = state.compareExchange(
            expected: Outcome.pending.rawValue, desired: outcome.rawValue, ordering: .acquiringAndReleasing)
        return exchanged || original == outcome.rawValue
    }
}
