/// An authorization of one resource (`GET /api/v1/authorize`).
public struct AuthorizationToken: Sendable, Hashable, Codable {
    public var resource: String
    public var mvpd: String
    /// Milliseconds since the epoch.
    public var expires: Int64

    public init(resource: String, mvpd: String, expires: Int64) {
        self.resource = resource
        self.mvpd = mvpd
        self.expires = expires
    }
}
