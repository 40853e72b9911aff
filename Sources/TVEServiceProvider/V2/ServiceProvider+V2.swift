import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension ServiceProvider {
    /// Serves REST API v2 under `/api/v2`: the generated server stubs of Adobe's contract on their own router group,
    /// behind ``V2Gate``.
    func v2Routes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        router.add(middleware: V2AddressBridge<Context>())
        let group = router.group(RouterPath(PassAPIv2.pathPrefix))
        let handlers = V2Handlers(provider: self)
        do {
            try handlers.registerHandlers(
                on: group, serverURL: URL(fileURLWithPath: "/"), middlewares: [PassAPIv2.ContentTypeMiddleware(), V2Gate(provider: self)])
        } catch {
            // Only a server URL that is not a URL throws, and "/" is one.
            assertionFailure("registering the v2 routes failed: \(error)")
        }
        return router
    }
}

/// Hands the client's address from the request context to the generated v2 code, which sees no request context
/// (``ClientAddress/current``, read by ``V2Gate``).
struct V2AddressBridge<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await ClientAddress.$current.withValue(ClientAddress.of(context)) { try await next(request, context) }
    }
}
