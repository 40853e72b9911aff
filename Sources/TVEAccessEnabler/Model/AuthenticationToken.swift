/// The authentication of this device, as the service provider reported it (`GET /api/v1/tokens/authn`).
public struct AuthenticationToken: Sendable, Hashable, Codable {
    /// The requestor ID the authentication was made for.
    public var requestor: String
    /// The ID of the MVPD the user logged in with.
    public var mvpd: String
    /// The user's ID from the MVPD. REST API v2: the profile's `userID` or `upstreamUserID` (decrypted with the
    /// configured metadata decryptor when it is encrypted); empty when it is unknown.
    public var userID: String
    /// Milliseconds since the epoch.
    public var expires: Int64
    /// Obtained through platform single sign-on (the token exchange).
    public var platformSSO: Bool

    /// An authentication; `expires` is in milliseconds since the epoch.
    public init(requestor: String, mvpd: String, userID: String, expires: Int64, platformSSO: Bool = false) {
        self.requestor = requestor
        self.mvpd = mvpd
        self.userID = userID
        self.expires = expires
        self.platformSSO = platformSSO
    }
}
