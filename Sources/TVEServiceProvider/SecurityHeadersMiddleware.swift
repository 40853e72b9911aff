import HTTPTypes
import Hummingbird

/// Two headers on every answer of the service provider, its pages and its APIs alike, errors included:
/// `X-Content-Type-Options: nosniff` (a browser never reads a JSON answer as a page or a script) and
/// `X-Frame-Options: DENY` (no page can be framed, for the browsers that predate the pages' CSP `frame-ancestors 'none'`).
/// A handler's own value stays.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.addHeaders(to: &response)
        return response
    }

    /// Adds the two headers to `response`, unless it has its own.
    static func addHeaders(to response: inout Response) {
        if response.headers[.xContentTypeOptions] == nil { response.headers[.xContentTypeOptions] = "nosniff" }
        if let frameOptions = HTTPField.Name("X-Frame-Options"), response.headers[frameOptions] == nil {
            response.headers[frameOptions] = "DENY"
        }
    }
}
