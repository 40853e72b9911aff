/// An authorization of one resource (`GET /api/v1/authorize`).
public struct AuthorizationToken: Sendable, Hashable, Codable {
    /// The resource, as the app named it.
    public var resource: String
    /// The ID of the MVPD that authorized it.
    public var mvpd: String
    /// Milliseconds since the epoch.
    public var expires: Int64

    /// An authorization; `expires` is in milliseconds since the epoch.
    public init(resource: String, mvpd: String, expires: Int64) {
        self.resource = resource
        self.mvpd = mvpd
        self.expires = expires
    }
}
