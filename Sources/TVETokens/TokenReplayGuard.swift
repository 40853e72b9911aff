import Foundation
import TVECrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Remembers tokens that were already accepted, so each is accepted once ("restricted to one-time use").
public protocol TokenReplayGuard: Sendable {
    /// Records `key` and returns `true` if it was not seen before (or its earlier record has expired); returns
    /// `false` for a replay, or when the guard cannot record it (it then fails closed).
    /// - Parameters:
    ///   - key: the token's replay key (``TokenReplayKey``: the SHA-256 of its signed bytes).
    ///   - expiresAt: when the record may be forgotten (the token's end of validity, skew included), in ms.
    ///   - now: the verifier's current time in ms.
    func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) -> Bool
}
