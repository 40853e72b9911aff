import Hummingbird
import TVEVerification

/// Records each request in a `RequestLog`: the matched route's pattern (`/reggie/v1/{requestor}/regcode/{code}`),
/// so that registration codes and other identifiers in paths stay out of the log; the raw path only when no route
/// matched.
public struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: RequestLog

    /// A middleware that records into `log`.
    public init(log: RequestLog) {
        self.log = log
    }

    /// Passes the request on and records one line for it: the method, the path as above, the status and the time taken
    /// in microseconds. A thrown error is recorded with its HTTP status (500 when it carries none) and thrown again.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log.record(
                method: request.method.rawValue, path: Self.loggedPath(request, context), status: response.status.code,
                microseconds: RequestLog.microseconds(since: started))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log.record(
                method: request.method.rawValue, path: Self.loggedPath(request, context), status: status,
                microseconds: RequestLog.microseconds(since: started))
            throw error
        }
    }

    /// The route's pattern, or the raw path when no route matched (Hummingbird names that endpoint "NotFound").
    static func loggedPath(_ request: Request, _ context: Context) -> String {
        guard let pattern = context.endpointPath, pattern != "NotFound" else { return request.uri.path }
        return pattern
    }
}
