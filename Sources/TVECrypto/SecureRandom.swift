internal import COpenSSL
import Foundation

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`), seeded by the operating system.
public enum SecureRandom {
    /// The largest single request, 1 MiB.
    public static let maximumCount = 1 << 20

    /// Returns `count` random bytes.
    /// - Throws: ``TVECryptoError/Code/invalidParameter`` for a negative or too large count,
    ///   ``TVECryptoError/Code/randomFailure`` if the generator fails.
    public static func bytes(count: Int) throws -> [UInt8] {
        guard count >= 0, count <= maximumCount else {
            throw TVECryptoError.invalidParameter(reason: "random byte count \(count) is outside 0...\(maximumCount)")
        }
        var result = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return result }
        let ok = result.withUnsafeMutableBytes { buffer in
            RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        guard ok == 1 else { throw TVECryptoError.randomFailure() }
        return result
    }

    /// Returns `count` random bytes in a buffer that is wiped when released (for keys).
    public static func secureBytes(count: Int) throws -> SecureBytes {
        guard count >= 0, count <= maximumCount else {
            throw TVECryptoError.invalidParameter(reason: "random byte count \(count) is outside 0...\(maximumCount)")
        }
        var ok: Int32 = 1
        let result = SecureBytes(capacity: count) { buffer in
            if count > 0 {
                ok = RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count))
            }
            return count
        }
        guard ok == 1 else { throw TVECryptoError.randomFailure() }
        return result
    }
}
