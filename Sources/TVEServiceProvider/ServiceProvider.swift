import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVEPassAPI
import TVEMetadata
import TVESAML
import TVETokens

/// The local service provider: Adobe Pass REST API v1 and client registration on loopback, with a local MVPD
/// identity provider, so that every entitlement flow runs for real, offline (FORMATS.md §6).
///
/// Routes (JSON; errors in the legacy or the enhanced shape, see ``ServiceProviderError``):
/// - `POST /o/client/register`, `POST /o/client/token` — Dynamic Client Registration.
/// - `GET /api/v1/config/{requestor}` — the MVPD list.
/// - `POST /reggie/v1/{requestor}/regcode`, `GET|DELETE /reggie/v1/{requestor}/regcode/{code}` — second screen.
/// - `GET /api/v1/authenticate` (browser) → the MVPD's login page → `POST /sp/saml/SAMLAssertionConsumer` → the app's
///   redirect URL; `GET /api/v1/checkauthn`, `GET /api/v1/checkauthn/{code}`, `GET /api/v1/tokens/authn`,
///   `POST /api/v1/tokens/authn` (platform-SSO token exchange), `GET /api/v1/{requestor}/profile-requests/{mvpd}`.
/// - `GET /api/v1/authorize`, `GET /api/v1/tokens/authz`, `GET /api/v1/tokens/media` (also `/api/v1/mediatoken`),
///   `GET /api/v1/preauthorize`, `GET /api/v1/tokens/usermetadata`, `DELETE /api/v1/logout`.
/// - The identity provider: `GET|POST /idp/{mvpd}/login`, `POST /idp/{mvpd}/sso` (see ``LocalIdentityProvider``).
///
/// Every `/api/v1` and `/reggie/v1` call but the browser's `authenticate` needs a client credential: a Bearer access
/// token, or for legacy clients a clientless HMAC `Authorization` header or a `signed_requestor_id`.
/// **Choice:** answers are JSON only (Adobe also offers XML).
public struct ServiceProvider: Sendable {
    /// The configuration it serves: requestors, MVPDs and their users, lifetimes and options.
    public let configuration: ServiceProviderConfiguration
    /// Dynamic Client Registration: the registered clients and their access tokens, which live 21,600 seconds.
    public let registry: ClientRegistry
    /// The second-screen registration codes: at most `stateCapacity` (an argument of the initializer) at a time.
    public let codes: RegistrationCodes
    /// The local MVPD identity providers, signing with ``ServiceProviderKeys/identityProviderSigningKey`` and sharing
    /// ``attempts``.
    public let identityProvider: LocalIdentityProvider
    let keys: ServiceProviderKeys
    let state: ServiceProviderState
    /// The REST API v2 state (sessions, profiles, TempPasses); a v1 login does not carry over, as at Adobe.
    let v2: V2State
    /// Failed-attempt limits (codes, passwords).
    public let attempts: AttemptLimiter
    /// How long a request's body may take to arrive (10 s by default). A slower one closes its connection at once when the
    /// request context is a `ConnectionRequestContext` (`ServerRequestContext` is); with another context it is answered
    /// 408, with `Connection: close`, once its body has arrived.
    public let bodyReadTimeout: Duration
    let issuer: MediaTokenIssuer
    let clock: any MediaTokenClock
    let throttle: TokenBucketThrottle?
    /// Degraded access, per MVPD: Adobe's operators' switch for an MVPD that is down (REST API v2).
    public let degradedAccess: DegradedAccess
    /// The requestors that list each registered application (``ServiceProviderConfiguration/Requestor/applications``).
    let applicationServiceProviders: [String: [String]]

    /// The longest field value accepted (a resource may be an MRSS document).
    static let maximumFieldBytes = 16 * 1024
    /// How far a clientless request time may be from now, either way (5 minutes).
    static let clientlessMaximumAge: Int64 = 300_000
    /// The largest form body accepted (a `SAMLResponse` is the largest field).
    static let maximumBodyBytes = 1_500_000

    /// - Throws: ``ServiceProviderError`` with code `invalid_configuration` when ``ServiceProviderConfiguration/problems``
    ///   is not empty.
    public init(
        configuration: ServiceProviderConfiguration, keys: ServiceProviderKeys, clock: any MediaTokenClock = SystemMediaTokenClock(),
        stateCapacity: Int = 100_000, attemptLimits: AttemptLimiter.Limits = .init(), bodyReadTimeout: Duration = .seconds(10)
    ) throws {
        self.bodyReadTimeout = bodyReadTimeout
        let problems = configuration.problems
        guard problems.isEmpty else {
            throw ServiceProviderError(
                status: 500, code: "invalid_configuration", message: "Invalid configuration",
                details: problems.joined(separator: "; "), action: .configuration)
        }
        self.configuration = configuration
        self.keys = keys
        self.clock = clock
        attempts = AttemptLimiter(limits: attemptLimits, capacity: stateCapacity)
        registry = ClientRegistry(
            statementKeys: keys.softwareStatementKeys, clock: clock, requiresDeviceInfo: configuration.strict, attempts: attempts)
        var applications: [String: [String]] = [:]
        for requestor in configuration.requestors {
            for application in requestor.applications ?? [] { applications[application, default: []].append(requestor.id) }
        }
        applicationServiceProviders = applications
        codes = RegistrationCodes(maximumCodes: stateCapacity, clock: clock)
        state = ServiceProviderState(capacity: stateCapacity)
        v2 = V2State(capacity: stateCapacity)
        issuer = MediaTokenIssuer(privateKey: keys.mediaTokenSigningKey, clock: clock)
        identityProvider = LocalIdentityProvider(
            configuration: configuration, signingKey: keys.identityProviderSigningKey, clock: clock, attempts: attempts)
        throttle = configuration.throttling ? TokenBucketThrottle(clock: clock) : nil
        degradedAccess = DegradedAccess(mvpds: configuration.mvpds.filter { $0.degradedAccess == true }.map(\.id), clock: clock)
    }

    /// Adds every route of the service provider and of its identity provider to `router`, on a route group of their
    /// own, one route collection per area: client registration, REST API v1's second screen, authentication and
    /// authorization (user metadata included), the MVPDs' identity provider pages, REST API v2, and v2's activation
    /// page. The group's middlewares, outermost first: the client's address into the context
    /// (``ClientAddressRequestContext``), the error shape (`ErrorShapeMiddleware`), and the throttle when it is
    /// configured. The caller's other routes get none of them.
    ///
    /// Three middlewares go on the router itself, for every route added from here on, the caller's included, and for a
    /// path that matches no route (so add the caller's routes after this call). First the security headers (`nosniff`,
    /// `X-Frame-Options: DENY`) on every answer, a 404 included; then the body limits (``bodyReadTimeout``, 1.5 MB): a
    /// body is read whole, in time, before anything else. Last, a method a path does not have is answered 405 with
    /// `Allow` (Hummingbird's router answers 404), for the routes the router has by then.
    public func addRoutes<Context: ClientAddressRequestContext>(to router: Router<Context>) {
        router.add(middleware: SecurityHeadersMiddleware<Context>())
        router.add(middleware: BodyReadTimeoutMiddleware<Context>(limit: Self.maximumBodyBytes, timeout: bodyReadTimeout))
        let group = router.group()
        let registry = self.registry
        let servers = Set(configuration.serverToServerApplications ?? [])
        group.add(
            middleware: ClientAddressMiddleware<Context>(
                trustsForwardedFor: configuration.trustsForwardedFor,
                isServerToServer: { servers.isEmpty ? false : registry.applicationID(forBearer: $0).map(servers.contains) ?? false }))
        group.add(middleware: ErrorShapeMiddleware<Context>(enhanced: configuration.enhancedErrors))
        if let throttle {
            group.add(middleware: ThrottlingMiddleware<Context>(throttle: throttle, enhancedErrors: configuration.enhancedErrors))
        }
        group.addRoutes(registry.routes(context: Context.self))
        group.addRoutes(registrationCodeRoutes(context: Context.self))
        group.addRoutes(authenticationRoutes(context: Context.self))
        group.addRoutes(authorizationRoutes(context: Context.self))
        group.addRoutes(identityProvider.routes(context: Context.self))
        group.addRoutes(v2Routes(context: Context.self))
        group.addRoutes(activationRoutes(context: Context.self))
        router.add(middleware: MethodNotAllowedMiddleware<Context>(routes: router.routes, enhancedErrors: configuration.enhancedErrors))
    }

    /// What the `Authorization: Bearer` value `header` may do on `requestor`'s routes: an access token is good on the
    /// requestors of its registered application only (``ServiceProviderConfiguration/Requestor/applications``).
    func access(bearer header: String?, requestor: String) -> ClientRegistry.BearerAccess {
        registry.access(bearer: header, serviceProvider: requestor) { subject in
            // nil asks whether any application is listed at all.
            guard let subject else { return applicationServiceProviders.isEmpty ? nil : [] }
            return applicationServiceProviders[subject]
        }
    }

    /// Registers an API handler; the ``ServiceProviderError`` it throws answers itself in the group's shape
    /// (`ErrorShapeMiddleware`).
    func api<Context: RequestContext>(
        _ router: some RouterMethods<Context>, _ method: HTTPRequest.Method, _ path: RouterPath,
        _ handler: @escaping @Sendable (APICall) async throws -> Response
    ) {
        router.on(path, method: method) { request, context -> Response in
            try await handler(
                try await APICall(provider: self, request: request, parameters: context.parameters, address: ClientAddress.of(context)))
        }
    }
}
