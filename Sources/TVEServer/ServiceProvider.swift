import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVEMetadata
import TVESAML
import TVETokens

/// The key material of the local service provider. None of it is ever logged or sent.
public struct ServiceProviderKeys: Sendable {
    /// Signs the short media tokens of `GET /api/v1/tokens/media` (Adobe's media-token certificate, locally).
    public var mediaTokenSigningKey: RSAPrivateKey
    /// Signs the local MVPD identity providers' SAML responses; the service provider pins its public half.
    public var identityProviderSigningKey: RSAPrivateKey
    /// Keys whose software statements client registration accepts.
    public var softwareStatementKeys: [RSAPublicKey]
    /// The programmer's certificate key: `GET /api/v1/tokens/usermetadata` encrypts the configured keys for it.
    /// Without it, metadata is served in clear.
    public var metadataEncryptionKey: RSAPublicKey?
    /// Keys whose signed requestor IDs (legacy SDKs) are accepted instead of a Bearer token.
    public var requestorSigningKeys: [RSAPublicKey]

    public init(
        mediaTokenSigningKey: RSAPrivateKey, identityProviderSigningKey: RSAPrivateKey, softwareStatementKeys: [RSAPublicKey],
        metadataEncryptionKey: RSAPublicKey? = nil, requestorSigningKeys: [RSAPublicKey] = []
    ) {
        self.mediaTokenSigningKey = mediaTokenSigningKey
        self.identityProviderSigningKey = identityProviderSigningKey
        self.softwareStatementKeys = softwareStatementKeys
        self.metadataEncryptionKey = metadataEncryptionKey
        self.requestorSigningKeys = requestorSigningKeys
    }
}

/// Fresh keys for a sandbox run, private halves included so that the app side (tests, `tvekit demo`, a developer)
/// can issue software statements, sign requestor IDs and decrypt metadata.
public struct SandboxKeys: Sendable {
    public let softwareStatementKey: RSAPrivateKey
    public let mediaTokenKey: RSAPrivateKey
    public let identityProviderKey: RSAPrivateKey
    public let metadataKey: RSAPrivateKey
    public let requestorKey: RSAPrivateKey

    /// Generates five 2048-bit keys.
    public init() throws {
        softwareStatementKey = try RSAPrivateKey(keySizeInBits: 2048)
        mediaTokenKey = try RSAPrivateKey(keySizeInBits: 2048)
        identityProviderKey = try RSAPrivateKey(keySizeInBits: 2048)
        metadataKey = try RSAPrivateKey(keySizeInBits: 2048)
        requestorKey = try RSAPrivateKey(keySizeInBits: 2048)
    }

    public var serviceProviderKeys: ServiceProviderKeys {
        ServiceProviderKeys(
            mediaTokenSigningKey: mediaTokenKey, identityProviderSigningKey: identityProviderKey,
            softwareStatementKeys: [softwareStatementKey.publicKey], metadataEncryptionKey: metadataKey.publicKey,
            requestorSigningKeys: [requestorKey.publicKey])
    }
}

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
    public let configuration: ServiceProviderConfiguration
    public let registry: ClientRegistry
    public let codes: RegistrationCodes
    public let identityProvider: LocalIdentityProvider
    let keys: ServiceProviderKeys
    let state: ServiceProviderState
    let issuer: MediaTokenIssuer
    let clock: any MediaTokenClock
    let throttle: TokenBucketThrottle?

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
        stateCapacity: Int = 100_000
    ) throws {
        let problems = configuration.problems
        guard problems.isEmpty else {
            throw ServiceProviderError(
                status: 500, code: "invalid_configuration", message: "Invalid configuration",
                details: problems.joined(separator: "; "), action: .configuration)
        }
        self.configuration = configuration
        self.keys = keys
        self.clock = clock
        registry = ClientRegistry(statementKeys: keys.softwareStatementKeys, clock: clock)
        codes = RegistrationCodes(maximumCodes: stateCapacity, clock: clock)
        state = ServiceProviderState(capacity: stateCapacity)
        issuer = MediaTokenIssuer(privateKey: keys.mediaTokenSigningKey, clock: clock)
        identityProvider = LocalIdentityProvider(configuration: configuration, signingKey: keys.identityProviderSigningKey, clock: clock)
        throttle = configuration.throttling ? TokenBucketThrottle(clock: clock) : nil
    }

    /// Adds every route of the service provider and of its identity provider, with the throttle when configured.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        if let throttle {
            router.middlewares.add(
                ThrottlingMiddleware<Context>(
                    throttle: throttle, enhancedErrors: configuration.enhancedErrors,
                    trustsForwardedFor: configuration.trustsForwardedFor))
        }
        registry.addRoutes(to: router)
        addRegistrationCodeRoutes(to: router)
        addAuthenticationRoutes(to: router)
        addAuthorizationRoutes(to: router)
        identityProvider.addRoutes(to: router)
        api(router, .get, "api/v1/config/:requestor") { call in
            let requestor = try call.pathRequestor()
            try call.requireClient(requestor: requestor.id)
            return VerificationService.json(.ok, ConfigResponse(mvpds: self.configuration.mvpds(for: requestor.id) ?? []))
        }
    }

    /// Registers an API handler: errors it throws become the configured error shape.
    func api<Context: RequestContext>(
        _ router: Router<Context>, _ method: HTTPRequest.Method, _ path: RouterPath,
        _ handler: @escaping @Sendable (APICall) async throws -> Response
    ) {
        router.on(path, method: method) { request, context -> Response in
            do {
                let call = try await APICall(provider: self, request: request, parameters: context.parameters)
                return try await handler(call)
            } catch let error as ServiceProviderError {
                return error.response(enhanced: self.configuration.enhancedErrors)
            } catch {
                return ServiceProviderError.internalError.response(enhanced: self.configuration.enhancedErrors)
            }
        }
    }
}

/// One API request: its form fields (query string, then an `application/x-www-form-urlencoded` body), path
/// parameters, and the checks every endpoint shares.
struct APICall: Sendable {
    let provider: ServiceProvider
    let request: Request
    let path: Parameters
    /// Fields in order of appearance, query first.
    let fields: [(name: String, value: String)]

    init(provider: ServiceProvider, request: Request, parameters: Parameters) async throws(ServiceProviderError) {
        self.provider = provider
        self.request = request
        path = parameters
        var fields = FormFields.parse(request.uri.query ?? "")
        if request.method == .post || request.method == .delete,
            request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        {
            guard let body = try? await request.body.collect(upTo: ServiceProvider.maximumBodyBytes) else {
                throw .init(
                    status: 413, code: "invalid_parameter", message: "Payload Too Large",
                    details: "the body is over \(ServiceProvider.maximumBodyBytes) bytes", action: .none)
            }
            fields += FormFields.parse(String(decoding: body.readableBytesView, as: UTF8.self))
        }
        self.fields = fields
    }

    /// The first value of `name`.
    func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Every value of `name`.
    func fields(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// A required, non-empty field without control characters, at most `limit` bytes.
    func required(_ name: String, limit: Int = ServiceProvider.maximumFieldBytes, error: ServiceProviderError? = nil)
        throws(ServiceProviderError) -> String
    {
        guard let value = field(name), FormFields.isAcceptable(value, limit: limit) else {
            throw error ?? .badRequest("invalid_parameter", "\(name) is required (at most \(limit) bytes, no control characters)")
        }
        return value
    }

    /// The configured requestor named by the `requestor` (or `requestor_id`) field.
    func requestor() throws(ServiceProviderError) -> ServiceProviderConfiguration.Requestor {
        guard let id = field("requestor") ?? field("requestor_id"), !id.isEmpty else {
            throw .badRequest("invalid_requestor", "requestor is required")
        }
        guard let requestor = provider.configuration.requestor(id) else { throw .unknownRequestor }
        return requestor
    }

    /// The configured requestor named by the `{requestor}` path parameter.
    func pathRequestor() throws(ServiceProviderError) -> ServiceProviderConfiguration.Requestor {
        guard let requestor = path.get("requestor").flatMap({ provider.configuration.requestor($0) }) else { throw .unknownRequestor }
        return requestor
    }

    func deviceID() throws(ServiceProviderError) -> String { try required("deviceId", limit: 256, error: .missingDeviceID) }

    /// Checks the client credential: a Bearer access token; a clientless HMAC-SHA1 header for `requestor` (fresh, its
    /// nonce unused, signed with a configured secret); or a `signed_requestor_id` of `requestor` by a configured key.
    ///
    /// **Choice:** the clientless header's `request_uri` is not compared with the request's path: public clients
    /// disagree on what it holds (FORMATS.md §4), and the HMAC, the method, the time and the nonce bind it.
    func requireClient(requestor: String) throws(ServiceProviderError) {
        let authorization = request.headers[.authorization]
        if let authorization, authorization.prefix(7).lowercased() == "bearer " {
            guard provider.registry.client(forBearer: authorization) != nil else { throw .unauthorizedClient }
            return
        }
        if let authorization, authorization.contains("signature_method=HMAC-SHA1") {
            try checkClientless(authorization, requestor: requestor)
            return
        }
        if let signature = field("signed_requestor_id") {
            let valid = provider.keys.requestorSigningKeys.contains { key in
                (try? SignedRequestorID.isValid(signature, for: requestor, publicKey: key)) == true
            }
            guard valid else { throw .unauthorizedClient }
            return
        }
        throw .unauthorizedClient
    }

    private func checkClientless(_ header: String, requestor: String) throws(ServiceProviderError) {
        let now = provider.clock.nowMilliseconds
        guard let authorization = try? ClientlessAuthorization(header: header),
            authorization.requestorID == requestor,
            authorization.method == request.method.rawValue,
            authorization.isFresh(now: now, maximumAge: ServiceProvider.clientlessMaximumAge),
            let credential = provider.configuration.requestor(requestor)?.clientlessCredentials?.first(where: {
                $0.publicKey == authorization.publicKey
            }),
            authorization.isValid(secret: SecureBytes(utf8: credential.secret), publicKey: credential.publicKey)
        else { throw .unauthorizedClient }
        // The nonce (at most 128 bytes, so that the cache stays small) is single use for as long as the request time is
        // fresh: until 5 minutes after it.
        guard authorization.nonce.utf8.count <= 128 else { throw .unauthorizedClient }
        let expires = max(now, authorization.requestTime) + ServiceProvider.clientlessMaximumAge + 1
        switch ServiceProviderState.firstUse(
            requestor + "\u{0}" + authorization.nonce, in: provider.state.nonces, expires: expires, now: now)
        {
        case .first: return
        case .replayed: throw .unauthorizedClient
        case .full: throw .busy
        }
    }
}

/// `application/x-www-form-urlencoded` parsing and the field checks.
enum FormFields {
    /// Pairs in order; `+` is a space; pairs that do not decode are skipped.
    static func parse(_ text: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? { String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count == 2 ? decode(parts[1]) : "" else { continue }
            fields.append((name, value))
        }
        return fields
    }

    static func isAcceptable(_ value: String, limit: Int) -> Bool {
        !value.isEmpty && value.utf8.count <= limit && !value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Percent-encodes a query value (unreserved characters only stay).
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
