import Foundation

/// The client credentials Dynamic Client Registration gave the app (`client_id`, `client_secret`), as the token store
/// keeps them. Its description never shows the secret.
public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible {
    public var clientID: String
    public var clientSecret: String

    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public var description: String { "ClientRegistration(clientID: \(clientID), clientSecret: <redacted>)" }
}
