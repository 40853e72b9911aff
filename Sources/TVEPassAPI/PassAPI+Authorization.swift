extension PassAPI {
    /// `GET /api/v1/authorize` and `GET /api/v1/tokens/authz`.
    public struct AuthorizationResponse: Sendable, Hashable, Codable {
        /// The MVPD that authorized the resource.
        public var mvpd: String
        /// The resource that was authorized; optional, as the client does not rely on it.
        public var resource: String?
        /// The requestor; optional, as the client does not rely on it.
        public var requestor: String?
        /// When the authorization expires.
        public var expires: Timestamp

        /// Creates the body of an authorization.
        public init(mvpd: String, resource: String?, requestor: String?, expires: Timestamp) {
            self.mvpd = mvpd
            self.resource = resource
            self.requestor = requestor
            self.expires = expires
        }
    }

    /// `GET /api/v1/tokens/media`: the Base64 short media token (FORMATS.md §1) in `serializedToken`.
    public struct MediaTokenResponse: Sendable, Hashable, Codable {
        /// The requestor the token was issued for, if the answer names it.
        public var requestor: String?
        /// The resource the token is for, if the answer names it.
        public var resource: String?
        /// The MVPD's identifier (`mvpdId`), if the answer names it.
        public var mvpdID: String?
        /// When the media token expires, if the answer says; the local service provider writes its issue time plus its TTL.
        public var expires: Timestamp?
        /// The Base64 short media token (FORMATS.md §1); the client treats an empty one as missing.
        public var serializedToken: String

        /// Creates the body of a media-token answer.
        public init(requestor: String?, resource: String?, mvpdID: String?, expires: Timestamp?, serializedToken: String) {
            self.requestor = requestor
            self.resource = resource
            self.mvpdID = mvpdID
            self.expires = expires
            self.serializedToken = serializedToken
        }

        enum CodingKeys: String, CodingKey {
            case requestor, resource, expires, serializedToken
            case mvpdID = "mvpdId"
        }
    }

    /// `GET /api/v1/preauthorize`: one decision per resource.
    public struct PreauthorizationResponse: Sendable, Hashable, Codable {
        /// The decision for one resource.
        public struct Decision: Sendable, Hashable, Codable {
            /// The resource the decision is about, as the request named it.
            public var id: String
            /// Whether the resource is authorized; nil when the answer leaves it out or it is not a Boolean (the client then
            /// counts the resource as denied).
            public var authorized: Bool?
            /// The enhanced error of a denial (enhanced errors on).
            public var error: EnhancedError?
            /// The MVPD's message for a denial (legacy errors).
            public var message: String?

            /// Creates a decision; a denial carries `error` (enhanced errors) or `message` (legacy errors).
            public init(id: String, authorized: Bool, error: EnhancedError? = nil, message: String? = nil) {
                self.id = id
                self.authorized = authorized
                self.error = error
                self.message = message
            }

            enum CodingKeys: String, CodingKey {
                case id, authorized, error, message
            }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                authorized = try? container.decodeIfPresent(Bool.self, forKey: .authorized)
                // An error object of another shape is read as absent: the decision is what counts.
                error = try? container.decodeIfPresent(EnhancedError.self, forKey: .error)
                message = try? container.decodeIfPresent(String.self, forKey: .message)
            }
        }

        /// One decision per resource; the local service provider keeps the order of the request.
        public var resources: [Decision]

        /// Creates the answer from its decisions.
        public init(resources: [Decision]) { self.resources = resources }
    }
}
