import Foundation
import TVEJSON
import TVEMetadata

/// `getMetadata`: the TTLs and the device ID from the stored tokens, user metadata from the service provider
/// (decrypted when a ``MetadataDecryptor`` is configured).
struct MetadataFlow {
    let configuration: AsyncAccessEnabler.Configuration
    let setup: RequestorSetup
    let session: SessionStore

    nonisolated(nonsending) func metadata(_ request: MetadataRequest) async throws(AccessEnablerError) -> MetadataAnswer {
        let entitlements = try await session.load()
        switch request {
        case .deviceID:
            return MetadataAnswer(value: .string(entitlements.deviceID), encrypted: false)
        case .authenticationTTL:
            return MetadataAnswer(value: entitlements.authentication.map { .string(String($0.expires)) }, encrypted: false)
        case .authorizationTTL(let resource):
            return MetadataAnswer(value: entitlements.authorizations[resource].map { .string(String($0.expires)) }, encrypted: false)
        case .userMetadata(let key):
            guard let authentication = entitlements.authentication else {
                throw AccessEnablerError(.userNotAuthenticated, "user metadata needs an authentication")
            }
            let (client, _) = try setup.client(for: authentication.mvpd)
            return try decode(try await client.userMetadata(deviceID: entitlements.deviceID, mvpd: authentication.mvpd), key: key)
        }
    }

    /// One value of the user-metadata document.
    private func decode(_ document: UserMetadataDocument, key: String) throws(AccessEnablerError) -> MetadataAnswer {
        switch document.entries[key] {
        case nil: return MetadataAnswer(value: nil, encrypted: false)
        case .plain(let value)?: return MetadataAnswer(value: value, encrypted: false)
        case .encrypted(let ciphertext)?:
            guard let decryptor = configuration.metadataDecryptor else {
                return MetadataAnswer(value: .string(ciphertext), encrypted: true)
            }
            do {
                return MetadataAnswer(value: try decryptor.decryptValue(ciphertext), encrypted: false)
            } catch {
                throw AccessEnablerError(
                    .internalError, "the user metadata value \"\(key.prefix(64))\" does not decrypt with the configured key")
            }
        }
    }
}
