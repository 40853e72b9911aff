internal import COpenSSL
import Foundation

/// HMAC (RFC 2104) with SHA-1 or SHA-2.
public enum HMAC {
    /// Returns the authentication code of `data` under `key`.
    /// - Parameters:
    ///   - data: the message.
    ///   - key: the secret key (any length; RFC 2104 hashes keys longer than the block size).
    ///   - hash: the hash function; ``HashFunction/sha1`` for the clientless request signature.
    /// - Throws: ``TVECryptoError/Code/openSSLFailure`` only if OpenSSL fails internally.
    public static func authenticationCode(for data: some DataProtocol, key: some DataProtocol, hash: HashFunction) throws -> [UInt8] {
        guard key.count <= 1 << 20 else { throw TVECryptoError.invalidParameter(reason: "HMAC key longer than 1 MiB") }
        var code = [UInt8](repeating: 0, count: hash.digestByteCount)
        var length: UInt32 = 0
        let ok = key.withContiguousBytes { keyBytes in
            data.withContiguousBytes { dataBytes in
                code.withUnsafeMutableBufferPointer { output in
                    COpenSSL.HMAC(
                        hash.evpMD, keyBytes.bytePointer, Int32(keyBytes.count), dataBytes.bytePointer, dataBytes.count,
                        output.baseAddress, &length) != nil
                }
            }
        }
        guard ok, Int(length) == hash.digestByteCount else { throw TVECryptoError.openSSLFailure(reason: "HMAC-\(hash) failed") }
        return code
    }

    /// Returns whether `code` is the authentication code of `data` under `key`, comparing in constant time.
    public static func isValidAuthenticationCode(
        _ code: some DataProtocol, for data: some DataProtocol, key: some DataProtocol,
        hash: HashFunction
    ) -> Bool {
        guard let expected = try? authenticationCode(for: data, key: key, hash: hash) else { return false }
        return ConstantTime.equals(expected, code)
    }
}
