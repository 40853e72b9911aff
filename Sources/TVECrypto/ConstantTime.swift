internal import COpenSSL
import Foundation

/// Comparisons whose running time does not depend on the contents of the inputs.
public enum ConstantTime {
    /// Returns whether `lhs` and `rhs` hold the same bytes, in time that depends only on their lengths
    /// (`CRYPTO_memcmp`). Inputs of different lengths return `false` at once: the length is not secret.
    public static func equals(_ lhs: some DataProtocol, _ rhs: some DataProtocol) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withContiguousBytes { left in
            rhs.withContiguousBytes { right in
                CRYPTO_memcmp(left.bytePointer, right.bytePointer, left.count) == 0
            }
        }
    }
}
