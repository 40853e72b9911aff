extension PassAPI {
    /// `GET /api/v1/authorize` and `GET /api/v1/tokens/authz`.
    public struct AuthorizationResponse: Sendable, Hashable, Codable {
        public var mvpd: String
        public var resource: String?
        public var requestor: String?
        public var expires: Timestamp

        public init(mvpd: String, resource: String?, requestor: String?, expires: Timestamp) {
            self.mvpd = mvpd
            self.resource = resource
            self.requestor = requestor
            self.expires = expires
        }
    }

    /// `GET /api/v1/tokens/media`: the Base64 short media token (FORMATS.md §1) in `serializedToken`.
    public struct MediaTokenResponse: Sendable, Hashable, Codable {
        public var requestor: String?
        public var resource: String?
        public var mvpdID: String?
        public var expires: Timestamp?
        public var serializedToken: String

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
        public struct Decision: Sendable, Hashable, Codable {
            public var id: String
            public var authorized: Bool?
            /// The enhanced error of a denial (enhanced errors on).
            public var error: EnhancedError?
            /// The MVPD's message for a denial (legacy errors).
            public var message: String?

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

        public var resources: [Decision]

        public init(resources: [Decision]) { self.resources = resources }
    }
}
