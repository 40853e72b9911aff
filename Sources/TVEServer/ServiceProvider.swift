import Foundation
import Hummingbird
import TVECrypto
import TVETokens

/// The local service provider (REST API v1 on loopback). In progress: client registration and the configuration
/// endpoint and second-screen registration codes are served; authentication, authorization, media tokens, metadata and logout follow.
public struct ServiceProvider: Sendable {
    public let configuration: ServiceProviderConfiguration
    public let registry: ClientRegistry
    public let codes: RegistrationCodes

    public init(configuration: ServiceProviderConfiguration, registry: ClientRegistry, codes: RegistrationCodes = RegistrationCodes()) {
        self.configuration = configuration
        self.registry = registry
        self.codes = codes
    }

    /// Adds the service provider's routes: `/o/client/*` and the Bearer-protected `/api/v1/*`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        registry.addRoutes(to: router)
        addRegistrationCodeRoutes(to: router)
        router.get("api/v1/config/:requestor") { request, context -> Response in
            if let denied = self.requireBearer(request) { return denied }
            let requestor = context.parameters.get("requestor") ?? ""
            guard let mvpds = self.configuration.mvpds(for: requestor) else {
                return VerificationService.json(.badRequest, LegacyError(status: 400, message: "Unknown requestor", details: nil))
            }
            return VerificationService.json(.ok, ConfigResponse(mvpds: mvpds))
        }
    }

    /// A 401 in the legacy error shape unless the request carries a valid Bearer access token.
    func requireBearer(_ request: Request) -> Response? {
        guard registry.client(forBearer: request.headers[.authorization]) != nil else {
            return VerificationService.json(.unauthorized, LegacyError(status: 401, message: "Unauthorized",
                                                                       details: "a valid Authorization: Bearer access token is required"))
        }
        return nil
    }
}
