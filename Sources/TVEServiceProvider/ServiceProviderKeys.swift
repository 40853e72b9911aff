import TVECrypto

/// The key material of the local service provider. None of it is ever logged or sent.
public struct ServiceProviderKeys: Sendable {
    /// Signs the short media tokens of `GET /api/v1/tokens/media` (Adobe's media-token certificate, locally).
    public var mediaTokenSigningKey: RSAPrivateKey
    /// Signs the local MVPD identity providers' SAML responses; the service provider pins its public half.
    public var identityProviderSigningKey: RSAPrivateKey
    /// Keys whose software statements client registration accepts.
    public var softwareStatementKeys: [RSAPublicKey]
    /// The programmer's certificate key: `GET /api/v1/tokens/usermetadata` encrypts the configured keys for it.
    /// Without it, metadata is served in clear.
    public var metadataEncryptionKey: RSAPublicKey?
    /// Keys whose signed requestor IDs (legacy SDKs) are accepted instead of a Bearer token.
    public var requestorSigningKeys: [RSAPublicKey]
    /// The platform identity services whose `Adobe-Subject-Token` JWTs (REST API v2 single sign-on with a platform
    /// identity) are accepted: each issuer (`iss`) with its keys. A token verifies only under its own issuer's keys.
    public var platformIdentityIssuers: [String: [RSAPublicKey]]
    /// The identity services whose `AD-Service-Token` JWTs (REST API v2 single sign-on with a service token) are
    /// accepted: each issuer (`iss`) with its keys. A token verifies only under its own issuer's keys.
    public var serviceTokenIssuers: [String: [RSAPublicKey]]

    /// The key material. Without `metadataEncryptionKey` metadata is served in clear; without `requestorSigningKeys`
    /// no signed requestor ID is accepted; without `platformIdentityIssuers` or `serviceTokenIssuers`, no single-sign-on
    /// token of that kind is.
    public init(
        mediaTokenSigningKey: RSAPrivateKey, identityProviderSigningKey: RSAPrivateKey, softwareStatementKeys: [RSAPublicKey],
        metadataEncryptionKey: RSAPublicKey? = nil, requestorSigningKeys: [RSAPublicKey] = [],
        platformIdentityIssuers: [String: [RSAPublicKey]] = [:], serviceTokenIssuers: [String: [RSAPublicKey]] = [:]
    ) {
        self.platformIdentityIssuers = platformIdentityIssuers
        self.serviceTokenIssuers = serviceTokenIssuers
        self.mediaTokenSigningKey = mediaTokenSigningKey
        self.identityProviderSigningKey = identityProviderSigningKey
        self.softwareStatementKeys = softwareStatementKeys
        self.metadataEncryptionKey = metadataEncryptionKey
        self.requestorSigningKeys = requestorSigningKeys
    }
}
