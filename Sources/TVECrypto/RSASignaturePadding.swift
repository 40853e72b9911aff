import Foundation

/// The RSA signature scheme: RSASSA-PKCS1-v1_5 (RFC 8017 §8.2) with a SHA-2 hash.
///
/// SHA-1 is refused: ``pkcs1v15(_:)`` throws ``TVECryptoError/Code/unsupportedAlgorithm`` for it, and the
/// static members cover the hashes that are accepted. Adobe Pass media tokens and signed requestor IDs use
/// ``pkcs1v15SHA256``.
public struct RSASignaturePadding: Hashable, Sendable, CustomStringConvertible {
    /// The hash the signature covers.
    public let hash: HashFunction

    private init(hash: HashFunction) { self.hash = hash }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (`SHA256withRSA`, JOSE `RS256`).
    public static let pkcs1v15SHA256 = RSASignaturePadding(hash: .sha256)
    /// RSASSA-PKCS1-v1_5 with SHA-384 (JOSE `RS384`).
    public static let pkcs1v15SHA384 = RSASignaturePadding(hash: .sha384)
    /// RSASSA-PKCS1-v1_5 with SHA-512 (JOSE `RS512`).
    public static let pkcs1v15SHA512 = RSASignaturePadding(hash: .sha512)
    /// RSASSA-PKCS1-v1_5 with SHA-224.
    public static let pkcs1v15SHA224 = RSASignaturePadding(hash: .sha224)

    /// RSASSA-PKCS1-v1_5 with `hash`.
    /// - Throws: ``TVECryptoError/Code/unsupportedAlgorithm`` for SHA-1, whose collisions make it unfit for
    ///   signatures (SHAttered, 2017).
    public static func pkcs1v15(_ hash: HashFunction) throws -> RSASignaturePadding {
        guard hash != .sha1 else {
            throw TVECryptoError.unsupportedAlgorithm(reason: "RSA signatures with SHA-1 are refused")
        }
        return RSASignaturePadding(hash: hash)
    }

    public var description: String { "RSASSA-PKCS1-v1_5 with \(hash)" }
}
