import Foundation

/// The client credentials Dynamic Client Registration gave the app (`client_id`, `client_secret`) and the last access
/// token they got, as the token store keeps them: a later launch reuses the token until a minute before it expires.
/// Its description never shows the secret or the token.
public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `client_id` the service provider registered.
    public var clientID: String
    /// The `client_secret` that goes with it; the description prints `<redacted>` instead.
    public var clientSecret: String
    /// The last access token of these credentials (nil: none yet, or refused since).
    public var accessToken: String?
    /// When ``accessToken`` expires, in milliseconds since the epoch.
    public var accessTokenExpires: Int64?

    /// The credentials of one registration.
    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public var description: String {
        "ClientRegistration(clientID: \(clientID), clientSecret: <redacted>\(accessToken == nil ? "" : ", accessToken: <redacted>"))"
    }
}
