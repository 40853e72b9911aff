import TVECrypto
import TVEServiceProvider

/// Fresh keys for a sandbox run, private halves included so that the app side (tests, `tvekit demo`, a developer)
/// can issue software statements, sign requestor IDs and decrypt metadata.
public struct SandboxKeys: Sendable {
    /// Signs the app's software statement; client registration accepts its public half.
    public let softwareStatementKey: RSAPrivateKey
    /// Signs the service provider's short media tokens; its public half verifies them.
    public let mediaTokenKey: RSAPrivateKey
    /// Signs the local MVPD identity providers' SAML responses.
    public let identityProviderKey: RSAPrivateKey
    /// The programmer's metadata key: the service provider encrypts user metadata for its public half.
    public let metadataKey: RSAPrivateKey
    /// Signs requestor IDs (legacy SDKs); the service provider accepts its public half.
    public let requestorKey: RSAPrivateKey
    /// Signs the platform's identity tokens (`Adobe-Subject-Token`); the service provider accepts its public half.
    public let platformIdentityKey: RSAPrivateKey
    /// Signs the identity service's service tokens (`AD-Service-Token`); the service provider accepts its public half.
    public let serviceTokenKey: RSAPrivateKey

    /// The issuer (`iss`) of the sandbox's single-sign-on tokens, for both methods: `identity.tvekit.test`.
    public static let identityIssuer = "identity.tvekit.test"

    /// Seven given keys, one per role (for tests that load fixed keys instead of generating them).
    /// - Parameters:
    ///   - softwareStatementKey: signs the app's software statement.
    ///   - mediaTokenKey: signs the service provider's short media tokens.
    ///   - identityProviderKey: signs the identity providers' SAML responses.
    ///   - metadataKey: the programmer's metadata key.
    ///   - requestorKey: signs requestor IDs.
    ///   - platformIdentityKey: signs the platform's identity tokens.
    ///   - serviceTokenKey: signs the identity service's service tokens.
    public init(
        softwareStatementKey: RSAPrivateKey, mediaTokenKey: RSAPrivateKey, identityProviderKey: RSAPrivateKey,
        metadataKey: RSAPrivateKey, requestorKey: RSAPrivateKey, platformIdentityKey: RSAPrivateKey, serviceTokenKey: RSAPrivateKey
    ) {
        self.softwareStatementKey = softwareStatementKey
        self.mediaTokenKey = mediaTokenKey
        self.identityProviderKey = identityProviderKey
        self.metadataKey = metadataKey
        self.requestorKey = requestorKey
        self.platformIdentityKey = platformIdentityKey
        self.serviceTokenKey = serviceTokenKey
    }

    /// Generates seven 2048-bit keys.
    public init() throws {
        softwareStatementKey = try RSAPrivateKey(keySizeInBits: 2048)
        mediaTokenKey = try RSAPrivateKey(keySizeInBits: 2048)
        identityProviderKey = try RSAPrivateKey(keySizeInBits: 2048)
        metadataKey = try RSAPrivateKey(keySizeInBits: 2048)
        requestorKey = try RSAPrivateKey(keySizeInBits: 2048)
        platformIdentityKey = try RSAPrivateKey(keySizeInBits: 2048)
        serviceTokenKey = try RSAPrivateKey(keySizeInBits: 2048)
    }

    /// The keys the service provider runs with: the media-token and identity-provider signing keys, and the public
    /// halves of the others.
    public var serviceProviderKeys: ServiceProviderKeys {
        ServiceProviderKeys(
            mediaTokenSigningKey: mediaTokenKey, identityProviderSigningKey: identityProviderKey,
            softwareStatementKeys: [softwareStatementKey.publicKey], metadataEncryptionKey: metadataKey.publicKey,
            requestorSigningKeys: [requestorKey.publicKey],
            platformIdentityIssuers: [Self.identityIssuer: [platformIdentityKey.publicKey]],
            serviceTokenIssuers: [Self.identityIssuer: [serviceTokenKey.publicKey]])
    }
}
