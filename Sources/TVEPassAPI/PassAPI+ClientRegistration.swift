extension PassAPI {
    /// `POST /o/client/register` (JSON body): the software statement to register, and the app's redirect URI.
    public struct ClientRegistrationRequest: Sendable, Hashable, Codable {
        /// The software statement, an RS256 JWT (FORMATS.md §6), sent as `software_statement`.
        public var softwareStatement: String
        /// The app's redirect URI (`redirect_uri`); nil leaves the field out.
        public var redirectURI: String?

        /// Creates a registration request; without a redirect URI by default.
        public init(softwareStatement: String, redirectURI: String? = nil) {
            self.softwareStatement = softwareStatement
            self.redirectURI = redirectURI
        }

        enum CodingKeys: String, CodingKey {
            case softwareStatement = "software_statement"
            case redirectURI = "redirect_uri"
        }
    }

    /// The `201` answer of `POST /o/client/register`: the client credentials.
    public struct ClientRegistrationResponse: Sendable, Hashable, Codable {
        /// The client ID (`client_id`).
        public var clientID: String
        /// The client secret (`client_secret`), which obtains access tokens with the client ID.
        public var clientSecret: String
        /// When the client ID was issued (`client_id_issued_at`); the local service provider writes seconds since the epoch.
        public var clientIDIssuedAt: Int64?
        /// The client's registered redirect URIs (`redirect_uris`).
        public var redirectURIs: [String]?
        /// The grant types the client may use (`grant_types`); the local service provider answers `client_credentials`.
        public var grantTypes: [String]?
        /// The client's scopes; the local service provider answers `api:client:v2`.
        public var scopes: [String]?

        /// Creates the body of a registration answer.
        public init(
            clientID: String, clientSecret: String, clientIDIssuedAt: Int64?, redirectURIs: [String]?, grantTypes: [String]?,
            scopes: [String]?
        ) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.clientIDIssuedAt = clientIDIssuedAt
            self.redirectURIs = redirectURIs
            self.grantTypes = grantTypes
            self.scopes = scopes
        }

        enum CodingKeys: String, CodingKey {
            case clientID = "client_id"
            case clientSecret = "client_secret"
            case clientIDIssuedAt = "client_id_issued_at"
            case redirectURIs = "redirect_uris"
            case grantTypes = "grant_types"
            case scopes
        }
    }

    /// `POST /o/client/token` (form body): the client-credentials grant.
    public struct AccessTokenRequest: Sendable, Hashable {
        /// The client ID of ``PassAPI/ClientRegistrationResponse`` (`client_id`).
        public var clientID: String
        /// The client secret of ``PassAPI/ClientRegistrationResponse`` (`client_secret`).
        public var clientSecret: String
        /// The grant type (`grant_type`); the local service provider accepts only `client_credentials`.
        public var grantType: String

        /// Creates a token request; the grant type is `client_credentials` by default.
        public init(clientID: String, clientSecret: String, grantType: String = "client_credentials") {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.grantType = grantType
        }

        /// The form fields, in order.
        public var formFields: [(String, String)] {
            [("client_id", clientID), ("client_secret", clientSecret), ("grant_type", grantType)]
        }

        /// Reads the form fields (the first of a repeated name wins); nil when one is missing.
        public init?(formFields fields: [(name: String, value: String)]) {
            func first(_ name: String) -> String? { fields.first { $0.name == name }?.value }
            guard let clientID = first("client_id"), let secret = first("client_secret"), let grant = first("grant_type") else {
                return nil
            }
            self.init(clientID: clientID, clientSecret: secret, grantType: grant)
        }
    }

    /// The answer of `POST /o/client/token`: the Bearer access token and its lifetime in seconds.
    public struct AccessTokenResponse: Sendable, Hashable, Codable {
        /// An identifier of the grant (`id`), if the answer has one; the client does not use it.
        public var id: String?
        /// The access token (`access_token`), sent as `Authorization: Bearer …` on later calls.
        public var accessToken: String
        /// When the token was issued (`created_at`); the local service provider writes milliseconds since the epoch.
        public var createdAt: Int64?
        /// The token's lifetime in seconds (`expires_in`).
        public var expiresIn: Int64
        /// The token type (`token_type`); the local service provider answers `bearer`.
        public var tokenType: String?

        /// Creates the body of an access-token answer.
        public init(id: String?, accessToken: String, createdAt: Int64?, expiresIn: Int64, tokenType: String?) {
            self.id = id
            self.accessToken = accessToken
            self.createdAt = createdAt
            self.expiresIn = expiresIn
            self.tokenType = tokenType
        }

        enum CodingKeys: String, CodingKey {
            case id
            case accessToken = "access_token"
            case createdAt = "created_at"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }
}
