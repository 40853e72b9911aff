import TVECrypto
import TVEServiceProvider

/// Fresh keys for a sandbox run, private halves included so that the app side (tests, `tvekit demo`, a developer)
/// can issue software statements, sign requestor IDs and decrypt metadata.
public struct SandboxKeys: Sendable {
    public let softwareStatementKey: RSAPrivateKey
    public let mediaTokenKey: RSAPrivateKey
    public let identityProviderKey: RSAPrivateKey
    public let metadataKey: RSAPrivateKey
    public let requestorKey: RSAPrivateKey

    /// Generates five 2048-bit keys.
    public init() throws {
        softwareStatementKey = try RSAPrivateKey(keySizeInBits: 2048)
        mediaTokenKey = try RSAPrivateKey(keySizeInBits: 2048)
        identityProviderKey = try RSAPrivateKey(keySizeInBits: 2048)
        metadataKey = try RSAPrivateKey(keySizeInBits: 2048)
        requestorKey = try RSAPrivateKey(keySizeInBits: 2048)
    }

    public var serviceProviderKeys: ServiceProviderKeys {
        ServiceProviderKeys(
            mediaTokenSigningKey: mediaTokenKey, identityProviderSigningKey: identityProviderKey,
            softwareStatementKeys: [softwareStatementKey.publicKey], metadataEncryptionKey: metadataKey.publicKey,
            requestorSigningKeys: [requestorKey.publicKey])
    }
}
