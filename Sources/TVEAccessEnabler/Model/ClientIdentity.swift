import TVECrypto

/// How the app identifies itself to the service provider.
public enum ClientIdentity: Sendable {
    /// Dynamic Client Registration with the software statement (SDK 3.x): client credentials, then Bearer tokens,
    /// cached and refreshed on expiry. `redirectURI` is registered with the client.
    case softwareStatement(String, redirectURI: String?)
    /// The legacy signed requestor ID (SDK 1.x/2.x), sent as `signed_requestor_id` with every call.
    case signedRequestorID(String)
    /// The legacy tvOS clientless credentials: an HMAC-SHA1 `Authorization` header on every call.
    case clientless(publicKey: String, secret: SecureBytes)
}
