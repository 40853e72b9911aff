import Foundation

/// The RSA encryption scheme: RSAES-OAEP (RFC 8017 §7.1) or, for legacy data only, RSAES-PKCS1-v1_5 (§7.2).
public struct RSAEncryptionPadding: Hashable, Sendable, CustomStringConvertible {
    enum Backing: Hashable, Sendable {
        case pkcs1v15
        case oaep(hash: HashFunction, mgf1: HashFunction)
    }
    let backing: Backing
    /// The OAEP label (empty for PKCS#1 v1.5 and for the usual OAEP).
    let label: [UInt8]

    /// RSAES-OAEP with SHA-1 and MGF1-SHA-1 (RFC 8017's default parameters; JOSE `RSA-OAEP`).
    public static let oaepSHA1 = RSAEncryptionPadding(backing: .oaep(hash: .sha1, mgf1: .sha1), label: [])
    /// RSAES-OAEP with SHA-256 and MGF1-SHA-256 (JOSE `RSA-OAEP-256`).
    public static let oaepSHA256 = RSAEncryptionPadding(backing: .oaep(hash: .sha256, mgf1: .sha256), label: [])

    /// RSAES-OAEP with any hash, MGF1 hash and label.
    public static func oaep(hash: HashFunction, mgf1Hash: HashFunction, label: [UInt8] = []) -> RSAEncryptionPadding {
        RSAEncryptionPadding(backing: .oaep(hash: hash, mgf1: mgf1Hash), label: label)
    }

    /// RSAES-PKCS1-v1_5.
    ///
    /// - Warning: PKCS#1 v1.5 encryption is open to Bleichenbacher's attack wherever an attacker can learn
    ///   whether a chosen ciphertext decrypts. It is here because Adobe Pass user metadata uses it. TVEKit
    ///   reports every failure with one error and turns off OpenSSL's implicit rejection, so a wrong key is an
    ///   error and never a random "plaintext". Prefer OAEP for anything new.
    public static let _weakAndInsecurePKCS1v15 = RSAEncryptionPadding(backing: .pkcs1v15, label: [])

    public var description: String {
        switch backing {
        case .pkcs1v15: return "RSAES-PKCS1-v1_5"
        case .oaep(let hash, let mgf1): return "RSAES-OAEP with \(hash) and MGF1-\(mgf1)" + (label.isEmpty ? "" : " and a label")
        }
    }

    /// The bytes of padding overhead: a plaintext may be at most `modulus bytes - overhead` long.
    var overhead: Int {
        switch backing {
        case .pkcs1v15: return 11
        case .oaep(let hash, _): return 2 * hash.digestByteCount + 2
        }
    }

    func operation(decrypt: Bool) -> EVPKey.Operation {
        switch backing {
        case .pkcs1v15: return decrypt ? .decryptPKCS1 : .encryptPKCS1
        case .oaep(let hash, let mgf1): return decrypt ? .decryptOAEP(hash, mgf1) : .encryptOAEP(hash, mgf1)
        }
    }
}
