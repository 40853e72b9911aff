extension PassAPI {
    /// `GET /api/v1/tokens/authn`: the device's authentication.
    public struct AuthenticationTokenResponse: Sendable, Hashable, Codable {
        public var requestor: String?
        public var mvpd: String
        public var userID: String
        public var expires: Timestamp

        public init(requestor: String?, mvpd: String, userID: String, expires: Timestamp) {
            self.requestor = requestor
            self.mvpd = mvpd
            self.userID = userID
            self.expires = expires
        }

        enum CodingKeys: String, CodingKey {
            case requestor, mvpd, expires
            case userID = "userId"
        }
    }

    /// A second-screen registration code (`POST /reggie/v1/{requestor}/regcode`, `GET …/regcode/{code}`).
    public struct RegistrationCodeRecord: Sendable, Hashable, Codable {
        public struct Info: Sendable, Hashable, Codable {
            public var deviceID: String
            public var deviceInfo: String
            public var userAgent: String?
            public var authorizationType: String

            public init(deviceID: String, deviceInfo: String, userAgent: String?, authorizationType: String) {
                self.deviceID = deviceID
                self.deviceInfo = deviceInfo
                self.userAgent = userAgent
                self.authorizationType = authorizationType
            }

            enum CodingKeys: String, CodingKey {
                case deviceInfo, userAgent, authorizationType
                case deviceID = "deviceId"
            }
        }

        public var id: String
        public var code: String
        public var requestor: String
        public var mvpd: String?
        /// Milliseconds since the epoch.
        public var generated: Int64
        public var expires: Int64
        public var info: Info

        public init(id: String, code: String, requestor: String, mvpd: String?, generated: Int64, expires: Int64, info: Info) {
            self.id = id
            self.code = code
            self.requestor = requestor
            self.mvpd = mvpd
            self.generated = generated
            self.expires = expires
            self.info = info
        }
    }

    /// `POST /idp/{mvpd}/sso`, the sandbox identity provider's answer to a platform single-sign-on account: the
    /// Base64 SAML response.
    public struct SingleSignOnResponse: Sendable, Hashable, Codable {
        public var samlResponse: String

        public init(samlResponse: String) { self.samlResponse = samlResponse }

        enum CodingKeys: String, CodingKey {
            case samlResponse = "SAMLResponse"
        }
    }
}
