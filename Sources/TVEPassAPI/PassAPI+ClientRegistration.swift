extension PassAPI {
    /// `POST /o/client/register` (JSON body): the software statement to register, and the app's redirect URI.
    public struct ClientRegistrationRequest: Sendable, Hashable, Codable {
        public var softwareStatement: String
        public var redirectURI: String?

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
        public var clientID: String
        public var clientSecret: String
        public var clientIDIssuedAt: Int64?
        public var redirectURIs: [String]?
        public var grantTypes: [String]?
        public var scopes: [String]?

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
        public var clientID: String
        public var clientSecret: String
        public var grantType: String

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
        public var id: String?
        public var accessToken: String
        public var createdAt: Int64?
        public var expiresIn: Int64
        public var tokenType: String?

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
