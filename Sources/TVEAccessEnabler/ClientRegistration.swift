import Foundation

/// The client credentials Dynamic Client Registration gave the app (`client_id`, `client_secret`), as the token store
/// keeps them. Its description never shows the secret.
public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `client_id` the service provider registered.
    public var clientID: String
    /// The `client_secret` that goes with it; the description prints `<redacted>` instead.
    public var clientSecret: String

    /// The credentials of one registration.
    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public var description: String { "ClientRegistration(clientID: \(clientID), clientSecret: <redacted>)" }
}
