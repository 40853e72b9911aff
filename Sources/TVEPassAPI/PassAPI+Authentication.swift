extension PassAPI {
    /// `GET /api/v1/tokens/authn`: the device's authentication.
    public struct AuthenticationTokenResponse: Sendable, Hashable, Codable {
        /// The requestor the authentication belongs to; optional, as the client does not rely on it.
        public var requestor: String?
        /// The MVPD the user signed in with.
        public var mvpd: String
        /// The user's ID as the MVPD asserted it (`userId`).
        public var userID: String
        /// When the authentication expires.
        public var expires: Timestamp

        /// Creates the body of a device's authentication.
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
        /// The device that asked for the code.
        public struct Info: Sendable, Hashable, Codable {
            /// The device's ID (`deviceId`), as the request sent it.
            public var deviceID: String
            /// The device information as the device sent it (`device_info` or `X-Device-Info`: Base64 JSON, not decoded here).
            /// The local service provider stores an empty string when there was none.
            public var deviceInfo: String
            /// The `User-Agent` of the request that created the code, if it had one.
            public var userAgent: String?
            /// The authorization type the record names; the local service provider writes `OAUTH2`.
            public var authorizationType: String

            /// Creates the device part of a record.
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

        /// The record's own identifier; the local service provider writes a lower-case UUID.
        public var id: String
        /// The registration code the device shows, for the user to enter on a second screen.
        public var code: String
        /// The requestor the code belongs to.
        public var requestor: String
        /// The MVPD the device named when it asked for the code, if any.
        public var mvpd: String?
        /// Milliseconds since the epoch.
        public var generated: Int64
        /// When the code expires, in milliseconds since the epoch.
        public var expires: Int64
        /// The device that asked for the code.
        public var info: Info

        /// Creates a record; `generated` and `expires` are in milliseconds since the epoch.
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
        /// The Base64 SAML response (`SAMLResponse`).
        public var samlResponse: String

        /// Creates the answer from a Base64 SAML response.
        public init(samlResponse: String) { self.samlResponse = samlResponse }

        enum CodingKeys: String, CodingKey {
            case samlResponse = "SAMLResponse"
        }
    }
}
