import Foundation
import HTTPTypes
import Hummingbird
import TVEConcurrency
import TVECrypto
import TVETokens
import TVEPassAPI

/// Dynamic Client Registration of the local service provider (FORMATS.md §6):
/// `POST /o/client/register` verifies the app's software statement (RS256, the configured key) and issues client
/// credentials; `POST /o/client/token` exchanges them for a Bearer access token with an expiry. State lives in
/// memory, bounded: expired tokens go first, a client holds at most `maximumTokensPerClient` live tokens (a new one
/// replaces its oldest), clients registered over an hour ago that hold no live token go when the table is full, and one
/// address registers at most `maximumRegistrationsPerAddress` clients an hour.
///
/// An access token is good on the service providers of its client's registered application only (``access(bearer:serviceProvider:applicationServiceProviders:)``):
/// those whose configuration lists the software statement's `sub` (``ServiceProviderConfiguration/Requestor/applications``),
/// or, for an application no service provider lists, the first service provider the client calls. Elsewhere the
/// token is refused as Adobe refuses it: 401 `invalid_access_token_service_provider`.
public final class ClientRegistry: Sendable {
    /// A client that `POST /o/client/register` registered. Its secret is not public: only the registration answer
    /// carries it.
    public struct Client: Sendable, Hashable {
        /// The client ID (`client_id`): 24 random bytes, Base64URL.
        public let id: String
        let secret: String
        /// When the client was registered, in seconds since 1970 (`client_id_issued_at`).
        public let issuedAt: Int64
        /// The redirect URI given at registration (`redirect_uris`); empty when none was given.
        public let redirectURIs: [String]
        /// The subject (`sub`) of the software statement the client registered with, when it has one.
        public let softwareStatementSubject: String?
    }

    struct AccessToken: Sendable {
        let clientID: String
        let expiresAt: Int64
    }

    struct State {
        var clients: [String: Client] = [:]
        var tokens: [String: AccessToken] = [:]
        /// Each client's tokens, oldest first.
        var tokensByClient: [String: [String]] = [:]
        var lastTokenSweep: Int64?
        var lastClientSweep: Int64?
        /// The service provider each client of an application no service provider lists was bound to, at its first call.
        var boundServiceProviders: [String: String] = [:]
    }

    /// What an access token may do on one service provider.
    public enum BearerAccess: Sendable, Hashable {
        /// The token is live and good on this service provider: the client it belongs to.
        case granted(clientID: String)
        /// No `Authorization: Bearer` value, an unknown token or an expired one.
        case unknownToken
        /// A live token of a client bound to other service providers.
        case otherServiceProvider
    }

    /// Live access tokens one client holds; a new one beyond them replaces the client's oldest.
    static let maximumTokensPerClient = 10
    /// How long a client with no live access token is kept once the table is full (an hour).
    static let idleClientLifetime: Int64 = 3_600_000

    /// Keys whose software statements are accepted.
    let statementKeys: [RSAPublicKey]
    /// Access-token lifetime in seconds (Adobe's sample: 21,600).
    public let accessTokenLifetime: Int64
    let maximumClients: Int
    /// Registrations one address may make per hour (the software statement ships inside the app, so anyone can
    /// register: this keeps one address from filling the table).
    let maximumRegistrationsPerAddress: Int
    private let registrationsByAddress: Locked<ExpiringTable<Int>>
    let maximumTokens: Int
    let clock: any MediaTokenClock
    /// Whether `POST /o/client/register` requires `X-Device-Info`, as Adobe's file marks it (off by default: Adobe's
    /// service and public clients register without it).
    public let requiresDeviceInfo: Bool
    /// Counts wrong client secrets per address (``AttemptLimiter/Kind/credential``).
    let attempts: AttemptLimiter
    private let state = Locked(State())

    /// An empty registry that accepts software statements signed by one of `statementKeys`.
    ///
    /// - Parameters:
    ///   - statementKeys: The RSA keys whose RS256 software statements are accepted.
    ///   - accessTokenLifetime: How long an access token lives, in seconds (default 21,600: 6 hours), kept within 1 to
    ///     86,400.
    ///   - maximumClients: The most registered clients kept (default 10,000); when the table is full and no idle client
    ///     can go, registration answers 503 `temporarily_unavailable`. It also bounds the per-address counts.
    ///   - maximumRegistrationsPerAddress: Registrations one address may make per hour (default 100); past them,
    ///     registration answers 429 `temporarily_unavailable`.
    ///   - maximumTokens: The most access tokens kept, all clients together (default 100,000); when they are all live,
    ///     the token endpoint answers 503 `temporarily_unavailable`.
    ///   - clock: The time source of registrations and token expiries.
    ///   - requiresDeviceInfo: Whether registration requires `X-Device-Info` (default `false`).
    ///   - attempts: The limiter that counts wrong client secrets per address (default: one of its own).
    public init(
        statementKeys: [RSAPublicKey], accessTokenLifetime: Int64 = 21_600, maximumClients: Int = 10_000,
        maximumRegistrationsPerAddress: Int = 100,
        maximumTokens: Int = 100_000, clock: any MediaTokenClock = SystemMediaTokenClock(), requiresDeviceInfo: Bool = false,
        attempts: AttemptLimiter = AttemptLimiter()
    ) {
        self.requiresDeviceInfo = requiresDeviceInfo
        self.attempts = attempts
        self.statementKeys = statementKeys
        // A day at most (Adobe documents 24 hours), a second at least: `now + lifetime * 1000` never overflows.
        self.accessTokenLifetime = min(max(accessTokenLifetime, 1), 86_400)
        self.maximumClients = maximumClients
        self.maximumRegistrationsPerAddress = maximumRegistrationsPerAddress
        registrationsByAddress = Locked(.init(capacity: maximumClients))
        self.maximumTokens = maximumTokens
        self.clock = clock
    }

    /// Counts a registration from `address`; `false` once the address has made its hourly number.
    func allowRegistration(from address: String) -> Bool {
        let now = clock.nowMilliseconds
        let key = String(address.prefix(64))
        return registrationsByAddress.withLock { table in
            switch table.lookup(key, now: now) {
            case .live(let count, let expires):
                guard count < maximumRegistrationsPerAddress else { return false }
                return table.insert(key, count + 1, expires: expires, now: now)
            default:
                return table.insert(key, 1, expires: now + 3_600_000, now: now)
            }
        }
    }

    /// Registers a client whose software statement verifies under one of the configured keys.
    func register(softwareStatement: String, redirectURI: String?) throws(ClientRegistrationError) -> Client {
        guard let statement = try? SoftwareStatement(compact: softwareStatement) else {
            throw .init(status: .badRequest, error: "invalid_software_statement", description: "the software statement is not an RS256 JWT")
        }
        guard statementKeys.contains(where: { statement.isSignatureValid(publicKey: $0) }) else {
            throw .init(
                status: .badRequest, error: "unapproved_software_statement",
                description: "the software statement is not signed by a trusted key")
        }
        if let redirectURI {
            guard redirectURI.utf8.count <= 2048, let url = URL(string: redirectURI), let scheme = url.scheme?.lowercased(),
                Self.isAcceptableRedirectScheme(scheme)
            else {
                throw .init(
                    status: .badRequest, error: "invalid_redirect_uri",
                    description: "redirect_uri must be an absolute http, https or app-scheme URI")
            }
        }
        let client = Client(
            id: Self.randomToken(), secret: Self.randomToken(), issuedAt: clock.nowMilliseconds / 1000,
            redirectURIs: redirectURI.map { [$0] } ?? [], softwareStatementSubject: statement.subject)
        // Full: clients registered over an hour ago that hold no live token go (an app with a token, or one just
        // registered, is never pushed out by anyone holding the public software statement); still full: refuse.
        let now = clock.nowMilliseconds
        let stored = state.withLock { state -> Bool in
            if state.clients.count >= maximumClients, state.lastClientSweep.map({ now &- $0 >= 1000 || now < $0 }) ?? true {
                state.lastClientSweep = now
                state.clients = state.clients.filter { id, client in
                    client.issuedAt * 1000 > now - Self.idleClientLifetime
                        || (state.tokensByClient[id] ?? []).contains { state.tokens[$0].map { $0.expiresAt > now } ?? false }
                }
            }
            guard state.clients.count < maximumClients else { return false }
            state.clients[client.id] = client
            return true
        }
        guard stored else {
            throw .init(status: .serviceUnavailable, error: "temporarily_unavailable", description: "too many registered clients")
        }
        return client
    }

    /// Issues an access token for valid client credentials.
    func token(clientID: String, clientSecret: String) throws(ClientRegistrationError) -> (token: String, createdAt: Int64) {
        let now = clock.nowMilliseconds
        let client = state.withLock { $0.clients[clientID] }
        guard let client, ConstantTime.equals(Array(client.secret.utf8), Array(clientSecret.utf8)) else {
            throw .init(status: .unauthorized, error: "invalid_client", description: "unknown client or wrong secret")
        }
        let token = Self.randomToken()
        let stored = state.withLock { state -> Bool in
            if state.tokens.count >= maximumTokens, state.lastTokenSweep.map({ now &- $0 >= 1000 || now < $0 }) ?? true {
                state.lastTokenSweep = now
                state.tokens = state.tokens.filter { $0.value.expiresAt > now }
                state.tokensByClient = state.tokensByClient.compactMapValues { list in
                    let live = list.filter { state.tokens[$0] != nil }
                    return live.isEmpty ? nil : live
                }
            }
            // One client cannot fill the table: past its share, its oldest token goes.
            var mine = (state.tokensByClient[client.id] ?? []).filter { state.tokens[$0].map { $0.expiresAt > now } ?? false }
            while mine.count >= Self.maximumTokensPerClient {
                state.tokens[mine.removeFirst()] = nil
            }
            guard state.tokens.count < maximumTokens else { return false }
            state.tokens[token] = AccessToken(clientID: client.id, expiresAt: now + accessTokenLifetime * 1000)
            state.tokensByClient[client.id] = mine + [token]
            return true
        }
        guard stored else {
            throw .init(status: .serviceUnavailable, error: "temporarily_unavailable", description: "too many access tokens")
        }
        return (token, now)
    }

    /// What an `Authorization: Bearer` value may do on `serviceProvider`.
    ///
    /// - Parameters:
    ///   - header: The `Authorization` header's value.
    ///   - serviceProvider: The requestor ID the request is for.
    ///   - applicationServiceProviders: The service providers that list a software statement's `sub`, or nil when none
    ///     does (the client is then bound to the first service provider it calls). Asked with nil, it says whether the
    ///     configuration lists any application at all: then an application it does not list is good nowhere.
    public func access(
        bearer header: String?, serviceProvider: String, applicationServiceProviders: (String?) -> [String]?
    ) -> BearerAccess {
        guard let clientID = client(forBearer: header) else { return .unknownToken }
        return state.withLock { state -> BearerAccess in
            // The application and the binding in one step, so that no sweep of the client table comes between them.
            guard let client = state.clients[clientID] else { return .unknownToken }
            if let listed = applicationServiceProviders(client.softwareStatementSubject) {
                return listed.contains(serviceProvider) ? .granted(clientID: clientID) : .otherServiceProvider
            }
            // Once a configuration lists applications, an application it does not list is good nowhere.
            if applicationServiceProviders(nil) != nil { return .otherServiceProvider }
            if let bound = state.boundServiceProviders[clientID] {
                return bound == serviceProvider ? .granted(clientID: clientID) : .otherServiceProvider
            }
            // Bounded by the client table: a binding goes with its client.
            if state.boundServiceProviders.count >= maximumClients {
                state.boundServiceProviders = state.boundServiceProviders.filter { state.clients[$0.key] != nil }
            }
            state.boundServiceProviders[clientID] = serviceProvider
            return .granted(clientID: clientID)
        }
    }

    /// The registered application (its software statement's `sub`) of the client an `Authorization: Bearer` value
    /// belongs to, when the token is live.
    func applicationID(forBearer header: String?) -> String? {
        guard let clientID = client(forBearer: header) else { return nil }
        return state.withLock { $0.clients[clientID]?.softwareStatementSubject }
    }

    /// The client an `Authorization: Bearer` value belongs to, when the token is known and not expired, whatever the
    /// service provider (``access(bearer:serviceProvider:applicationServiceProviders:)`` also checks that).
    public func client(forBearer header: String?) -> String? {
        guard let header, header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = String(header.dropFirst(7))
        let now = clock.nowMilliseconds
        return state.withLock { state -> String? in
            guard let entry = state.tokens[token] else { return nil }
            guard entry.expiresAt > now else {
                state.tokens[token] = nil
                return nil
            }
            return entry.clientID
        }
    }

    /// Schemes a redirect URI may have: `http`, `https`, or an app's own scheme (`adobepass`, `com.example.app`);
    /// never one a browser runs or reads (`javascript`, `data`, `vbscript`, `file`, `blob`, `about`).
    static func isAcceptableRedirectScheme(_ scheme: String) -> Bool {
        let refused: Set<String> = [
            "javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "view-source", "intent", "jar", "livescript",
        ]
        return !refused.contains(scheme) && !scheme.hasPrefix("ms-")
            && scheme.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0) }
    }

    static func randomToken() -> String {
        Base64URL.encode((try? SecureRandom.bytes(count: 24)) ?? Array(UUID().uuidString.utf8))
    }
}
