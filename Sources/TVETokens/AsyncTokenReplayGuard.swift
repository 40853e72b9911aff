/// What a replay store decided for one token.
public enum ReplayDecision: Sendable, Hashable {
    /// The token was not seen before (or its earlier record has expired): it is recorded now.
    case firstUse
    /// The token was used before.
    case replayed
    /// The store could not answer (down, slow, full). The verification fails closed with
    /// ``MediaTokenVerification/Result/replayCheckFailed``; `reason` says why, never a secret.
    case unavailable(reason: String)
}

/// One-time use kept by a store that needs the network (a database shared by a fleet of verifiers): the asynchronous
/// counterpart of ``TokenReplayGuard``, used by ``MediaTokenVerifier/verify(_:resourceID:replayGuard:)``.
///
/// A guard must decide each key by one atomic step of its store, so that of concurrent first uses of a token across
/// every process sharing the store exactly one is ``ReplayDecision/firstUse``; and it must bound every call in time,
/// answering ``ReplayDecision/unavailable(reason:)`` rather than waiting without end.
public protocol AsyncTokenReplayGuard: Sendable {
    /// Records `key` unless it is recorded already and not expired.
    /// - Parameters:
    ///   - key: the token's replay key (``TokenReplayKey``: the SHA-256 of its signed bytes).
    ///   - expiresAt: when the record may be forgotten (the token's end of validity, skew included), in ms.
    ///   - now: the verifier's current time in ms.
    func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision

    /// Records several keys at once, answering in order. A key that appears twice is a first use at most once (the
    /// first time). The default records them one by one; a store overrides it to use one round trip.
    func recordFirstUses(of keys: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64) async -> [ReplayDecision]
}

extension AsyncTokenReplayGuard {
    public func recordFirstUses(of keys: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64) async -> [ReplayDecision] {
        var decisions: [ReplayDecision] = []
        decisions.reserveCapacity(keys.count)
        for (key, expiresAt) in keys { decisions.append(await recordFirstUse(of: key, expiresAt: expiresAt, now: now)) }
        return decisions
    }
}

/// A synchronous guard used where an asynchronous one is expected (the in-memory guard behind the async path).
public struct AsyncReplayGuardAdapter: AsyncTokenReplayGuard {
    /// The synchronous guard that decides. Its `false` (a replay, or a key it could not record) is answered as
    /// ``ReplayDecision/replayed``, never ``ReplayDecision/unavailable(reason:)``.
    public let base: any TokenReplayGuard

    /// Wraps a synchronous guard, such as an ``InMemoryTokenReplayGuard``.
    public init(_ base: any TokenReplayGuard) { self.base = base }

    public func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
        base.recordFirstUse(of: key, expiresAt: expiresAt, now: now) ? .firstUse : .replayed
    }
}
