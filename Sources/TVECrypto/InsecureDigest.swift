internal import COpenSSL
import Foundation

/// Digests that are broken for security and kept only where another system fixes them.
public enum InsecureDigest {
    /// MD5 (RFC 1321), for identifiers that must match those other systems compute, such as the AccessEnabler
    /// SDK's hashed user GUID in tracking data. Never use it to protect anything: collisions are cheap. It is
    /// deliberately not a ``HashFunction``, so that no signature, HMAC or OAEP can be made with it.
    /// - Throws: ``TVECryptoError/Code/openSSLFailure`` when OpenSSL cannot compute it (a FIPS-only configuration).
    public static func md5(_ data: some DataProtocol) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let ok = data.withContiguousBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(
                    input.baseAddress ?? UnsafeRawPointer(emptyBytePointer), input.count, output.baseAddress, &length, EVP_md5(), nil)
            }
        }
        guard ok == 1, length == 16 else { throw TVECryptoError.openSSLFailure(reason: "EVP_Digest(MD5) failed") }
        return digest
    }
}
