/// The authentication of this device, as the service provider reported it (`GET /api/v1/tokens/authn`).
public struct AuthenticationToken: Sendable, Hashable, Codable {
    public var requestor: String
    public var mvpd: String
    public var userID: String
    /// Milliseconds since the epoch.
    public var expires: Int64
    /// Obtained through platform single sign-on (the token exchange).
    public var platformSSO: Bool

    public init(requestor: String, mvpd: String, userID: String, expires: Int64, platformSSO: Bool = false) {
        self.requestor = requestor
        self.mvpd = mvpd
        self.userID = userID
        self.expires = expires
        self.platformSSO = platformSSO
    }
}
