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
    func addV2Routes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        let group = router.group(RouterPath(PassAPIv2.pathPrefix))
        let handlers = V2Handlers(provider: self)
        do {
            try handlers.registerHandlers(
                on: group, serverURL: URL(fileURLWithPath: "/"), middlewares: [PassAPIv2.ContentTypeMiddleware(), V2Gate(provider: self)])
        } catch {
            // Only a server URL that is not a URL throws, and "/" is one.
            assertionFailure("registering the v2 routes failed: \(error)")
        }
    }
}
