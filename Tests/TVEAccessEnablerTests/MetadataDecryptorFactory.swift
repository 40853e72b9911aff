import TVECrypto
import TVEMetadata

enum MetadataDecryptorFactory {
    static func make(_ key: RSAPrivateKey) -> MetadataDecryptor { MetadataDecryptor(privateKey: key) }
}
