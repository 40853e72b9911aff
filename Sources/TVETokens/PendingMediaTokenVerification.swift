/// A verification that stopped before its one-time-use check: either already decided (the token failed an earlier
/// check), or waiting for a replay store's ``ReplayDecision``. What
/// ``MediaTokenVerifier/verifyAwaitingReplayCheck(_:resourceID:)`` returns, so that a service can check a batch of
/// tokens with one round trip to its store.
public enum PendingMediaTokenVerification: Sendable {
    /// The verification is final: the token failed a check before one-time use.
    case decided(MediaTokenVerification)
    /// The token passed every check but one-time use; ``PendingMediaTokenVerification/ReplayCheck/complete(with:)`` finishes the
    /// verification with the store's ``ReplayDecision``.
    case awaitingReplayCheck(ReplayCheck)

    /// The one-time-use check a token still needs: its key and expiry, and the verification it completes.
    public struct ReplayCheck: Sendable {
        /// The token's replay key (the SHA-256 of its signed bytes, the digest its signature was checked against); nil
        /// only if hashing failed.
        public var key: TokenReplayKey? { storedKey ?? (try? TokenReplayKey(signedBytes: token.token.signedBytes)) }
        let storedKey: TokenReplayKey?
        /// When the record may be forgotten (the token's end of validity, skew included), in ms.
        public let expiresAt: Int64
        /// The verifier's time when it checked the token, in ms.
        public let now: Int64
        let token: VerifiedMediaToken

        init(expiresAt: Int64, now: Int64, token: VerifiedMediaToken, key: TokenReplayKey? = nil) {
            self.expiresAt = expiresAt
            self.now = now
            self.token = token
            storedKey = key
        }

        /// The verification, given the store's decision: valid only for ``ReplayDecision/firstUse``.
        public func complete(with decision: ReplayDecision) -> MediaTokenVerification {
            switch decision {
            case .firstUse: MediaTokenVerification(result: .validToken, token: token, reason: "")
            case .replayed: .invalid(.tokenReplayed, "the token was used before")
            case .unavailable(let reason): .invalid(.replayCheckFailed, "the replay store cannot answer: \(reason)")
            }
        }
    }
}
