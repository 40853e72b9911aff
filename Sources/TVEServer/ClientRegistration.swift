import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVETokens

/// Dynamic Client Registration of the local service provider (FORMATS.md §6):
/// `POST /o/client/register` verifies the app's software statement (RS256, the configured key) and issues client
/// credentials; `POST /o/client/token` exchanges them for a Bearer access token with an expiry. State lives in
/// memory, bounded (oldest clients and expired tokens go first).
public final class ClientRegistry: Sendable {
    public struct Client: Sendable, Hashable {
        public let id: String
        let secret: String
        public let issuedAt: Int64
        public let redirectURIs: [String]
        public let softwareStatementSubject: String?
    }

    struct AccessToken: Sendable {
        let clientID: String
        let expiresAt: Int64
    }

    struct State {
        var clients: [String: Client] = [:]
        var tokens: [String: AccessToken] = [:]
        var lastTokenSweep: Int64?
    }

    /// Keys whose software statements are accepted.
    let statementKeys: [RSAPublicKey]
    /// Access-token lifetime in seconds (Adobe's sample: 21,600).
    public let accessTokenLifetime: Int64
    let maximumClients: Int
    let maximumTokens: Int
    let clock: any MediaTokenClock
    private let state = Locked(State())

    public init(
        statementKeys: [RSAPublicKey], accessTokenLifetime: Int64 = 21_600, maximumClients: Int = 10_000,
        maximumTokens: Int = 100_000, clock: any MediaTokenClock = SystemMediaTokenClock()
    ) {
        self.statementKeys = statementKeys
        self.accessTokenLifetime = accessTokenLifetime
        self.maximumClients = maximumClients
        self.maximumTokens = maximumTokens
        self.clock = clock
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
            guard let url = URL(string: redirectURI), url.scheme != nil, redirectURI.utf8.count <= 2048 else {
                throw .init(status: .badRequest, error: "invalid_redirect_uri", description: "redirect_uri is not an absolute URI")
            }
        }
        let client = Client(
            id: Self.randomToken(), secret: Self.randomToken(), issuedAt: clock.nowMilliseconds / 1000,
            redirectURIs: redirectURI.map { [$0] } ?? [], softwareStatementSubject: statement.subject)
        // Full: refuse. Evicting would let anyone holding the (public) software statement push real apps out.
        let stored = state.withLock { state -> Bool in
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
            }
            guard state.tokens.count < maximumTokens else { return false }
            state.tokens[token] = AccessToken(clientID: client.id, expiresAt: now + accessTokenLifetime * 1000)
            return true
        }
        guard stored else {
            throw .init(status: .serviceUnavailable, error: "temporarily_unavailable", description: "too many access tokens")
        }
        return (token, now)
    }

    /// The client an `Authorization: Bearer` value belongs to, when the token is known and not expired.
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

    static func randomToken() -> String {
        Base64URL.encode((try? SecureRandom.bytes(count: 24)) ?? Array(UUID().uuidString.utf8))
    }

    // MARK: HTTP

    static let deviceInfoHeader = HTTPField.Name("X-Device-Info")

    struct RegisterRequest: Decodable {
        let software_statement: String
        let redirect_uri: String?
    }

    struct RegisterResponse: Encodable {
        let client_id: String
        let client_secret: String
        let client_id_issued_at: Int64
        let redirect_uris: [String]
        let grant_types: [String]
        let scopes: [String]
    }

    struct TokenResponse: Encodable {
        let id: String
        let access_token: String
        let created_at: Int64
        let expires_in: Int64
        let token_type: String
    }

    /// Adds `POST /o/client/register` and `POST /o/client/token`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("o/client/register") { request, _ -> Response in
            guard let deviceInfo = Self.deviceInfoHeader, request.headers[deviceInfo] != nil else {
                return ClientRegistrationError(
                    status: .badRequest, error: "invalid_request", description: "the X-Device-Info header is required"
                ).response
            }
            guard let body = try? await request.body.collect(upTo: 64 * 1024),
                let input = try? JSONDecoder().decode(RegisterRequest.self, from: Data(body.readableBytesView))
            else {
                return ClientRegistrationError(
                    status: .badRequest, error: "invalid_request", description: "the body must be JSON {software_statement, redirect_uri?}"
                ).response
            }
            do {
                let client = try self.register(softwareStatement: input.software_statement, redirectURI: input.redirect_uri)
                return VerificationService.json(
                    .created,
                    RegisterResponse(
                        client_id: client.id, client_secret: client.secret, client_id_issued_at: client.issuedAt,
                        redirect_uris: client.redirectURIs,
                        grant_types: ["client_credentials"], scopes: ["api:client:v2"]))
            } catch let error as ClientRegistrationError {
                return error.response
            } catch {
                return ClientRegistrationError(status: .internalServerError, error: "server_error", description: "unexpected failure")
                    .response
            }
        }
        router.post("o/client/token") { request, _ -> Response in
            guard let body = try? await request.body.collect(upTo: 16 * 1024) else {
                return ClientRegistrationError(status: .badRequest, error: "invalid_request", description: "the body is too large").response
            }
            let form = Self.formFields(String(decoding: body.readableBytesView, as: UTF8.self))
            guard let clientID = form["client_id"], let secret = form["client_secret"], let grant = form["grant_type"] else {
                return ClientRegistrationError(
                    status: .badRequest, error: "invalid_request", description: "client_id, client_secret and grant_type are required"
                ).response
            }
            guard grant == "client_credentials" else {
                return ClientRegistrationError(
                    status: .badRequest, error: "unsupported_grant_type", description: "only client_credentials is supported"
                ).response
            }
            do {
                let (token, created) = try self.token(clientID: clientID, clientSecret: secret)
                return VerificationService.json(
                    .created,
                    TokenResponse(
                        id: Self.randomToken(), access_token: token, created_at: created,
                        expires_in: self.accessTokenLifetime, token_type: "bearer"))
            } catch let error as ClientRegistrationError {
                return error.response
            } catch {
                return ClientRegistrationError(status: .internalServerError, error: "server_error", description: "unexpected failure")
                    .response
            }
        }
    }

    /// `application/x-www-form-urlencoded` fields (the first of repeated names wins).
    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in FormFields.parse(body) where fields[name] == nil { fields[name] = value }
        return fields
    }
}

/// A DCR error: its HTTP status and the OAuth-style `{"error", "error_description"}` body.
struct ClientRegistrationError: Error {
    let status: HTTPResponse.Status
    let error: String
    let description: String

    struct Body: Encodable {
        let error: String
        let error_description: String
    }

    var response: Response { VerificationService.json(status, Body(error: error, error_description: description)) }
}
