import Foundation
import TVECrypto

/// The identity of a token for one-time use: the SHA-256 of its signed bytes (so the same token is caught whether
/// it arrives serialized or raw, wrapped or not).
public struct TokenReplayKey: Hashable, Sendable {
    let a: UInt64, b: UInt64, c: UInt64, d: UInt64

    /// The key of `signedBytes`.
    public init(signedBytes: some DataProtocol) throws {
        let digest = try HashFunction.sha256.hash(signedBytes)
        func word(_ at: Int) -> UInt64 { digest[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        a = word(0)
        b = word(8)
        c = word(16)
        d = word(24)
    }

    /// The key of signed bytes whose SHA-256 digest is `digest` (32 bytes).
    package init(sha256Digest digest: UnsafeRawBufferPointer) {
        func word(_ at: Int) -> UInt64 { digest[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        a = word(0)
        b = word(8)
        c = word(16)
        d = word(24)
    }

    /// The digest as four big-endian 64-bit words, in order (a store writes them without building ``bytes``).
    package var words: (UInt64, UInt64, UInt64, UInt64) { (a, b, c, d) }

    /// The 32 bytes of the SHA-256 digest (what a shared store keeps).
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in [a, b, c, d] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return bytes
    }
}
