import Foundation
import TVECrypto

/// Encrypts user metadata to a programmer's public key or certificate, in either encoding (for the local service
/// provider and for tests).
public struct MetadataEncryptor: Sendable {
    /// How values are encrypted.
    public enum Encoding: Sendable, Hashable {
        /// Base64 of RSAES-PKCS1-v1_5 blocks (Adobe Pass REST v1), optionally wrapped at `lineLength` columns.
        case rsaBlocks(lineLength: Int?)
        /// JWE compact serialization.
        case jwe(JWE.KeyAlgorithm, JWE.ContentAlgorithm)
    }

    /// The programmer's RSA public key, to which every value is encrypted.
    public let publicKey: RSAPublicKey
    /// How values are encrypted.
    public let encoding: Encoding

    /// An encryptor to `publicKey`; by default it writes RSA blocks as Base64 without line breaks.
    public init(publicKey: RSAPublicKey, encoding: Encoding = .rsaBlocks(lineLength: nil)) {
        self.publicKey = publicKey
        self.encoding = encoding
    }

    /// An encryptor to the public key of `certificate`; by default it writes RSA blocks as Base64 without line
    /// breaks.
    /// - Throws: ``MetadataError/Code/invalidConfiguration`` when the certificate's key is not a usable RSA key.
    public init(certificate: X509Certificate, encoding: Encoding = .rsaBlocks(lineLength: nil)) throws {
        do {
            self.init(publicKey: try RSAPublicKey(certificate: certificate), encoding: encoding)
        } catch let error as TVECryptoError {
            throw MetadataError.invalidConfiguration(reason: "the certificate's key is unusable: \(error.reason)")
        }
    }

    /// Encrypts the JSON text of `value`.
    public func encryptValue(_ value: JSONValue) throws -> String {
        try encrypt(plaintext: Array(value.jsonText.utf8))
    }

    /// Encrypts raw plaintext bytes.
    public func encrypt(plaintext: some DataProtocol) throws -> String {
        do {
            switch encoding {
            case .rsaBlocks(let lineLength):
                return Base64.encode(try publicKey.encryptPKCS1v15Blocks(plaintext), lineLength: lineLength)
            case .jwe(let alg, let enc):
                return try JWE.encrypt(plaintext, to: publicKey, keyAlgorithm: alg, contentAlgorithm: enc)
            }
        } catch let error as TVECryptoError {
            throw MetadataError.encryptionFailed(reason: error.reason)
        }
    }

    /// A REST v1 document with the values of `keys` encrypted and the others in clear.
    /// - Throws: ``MetadataError/Code/malformedDocument`` when `keys` names a key `metadata` lacks.
    public func encryptDocument(_ metadata: UserMetadata, encrypting keys: Set<String>) throws -> UserMetadataDocument {
        if let missing = keys.first(where: { metadata.values[$0] == nil }) {
            throw MetadataError.malformedDocument(reason: "there is no key \"\(UserMetadataDocument.printable(missing))\" to encrypt")
        }
        var entries: [String: UserMetadataDocument.Entry] = [:]
        for (key, value) in metadata.values {
            entries[key] = keys.contains(key) ? .encrypted(try encryptValue(value)) : .plain(value)
        }
        return UserMetadataDocument(shape: .restV1, updated: metadata.updated ?? 0, entries: entries)
    }
}
