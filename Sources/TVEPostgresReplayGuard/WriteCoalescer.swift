import TVECrypto
import TVETokens

/// Gathers concurrent single-token checks into shared statements: while `maximumInFlight` statements are out, new
/// keys wait and leave together in the next one (at most `maximumBatch` keys), so that under load the database commits
/// once per group rather than once per token, with nothing held back when it is idle. A key queued behind a statement
/// waits for it, so a check takes at most about twice the store's timeout.
final class WriteCoalescer: Sendable {
    typealias Flush = @Sendable ([(key: TokenReplayKey, expiresAt: Int64)], Int64) async -> [ReplayDecision]

    private struct Waiter {
        let key: TokenReplayKey
        let expiresAt: Int64
        let now: Int64
        let continuation: CheckedContinuation<ReplayDecision, Never>
    }

    private struct State {
        var pending: [Waiter] = []
        var inFlight = 0
    }

    private let state = Locked(State())
    private let maximumInFlight: Int
    private let maximumBatch: Int

    init(maximumInFlight: Int, maximumBatch: Int) {
        self.maximumInFlight = max(1, maximumInFlight)
        self.maximumBatch = max(1, maximumBatch)
    }

    /// Decides `key` in the next statement `flush` sends (the statement of whoever finds a free slot).
    func submit(_ key: TokenReplayKey, expiresAt: Int64, now: Int64, flush: @escaping Flush) async -> ReplayDecision {
        await withCheckedContinuation { continuation in
            let batch = state.withLock { state -> [Waiter]? in
                state.pending.append(Waiter(key: key, expiresAt: expiresAt, now: now, continuation: continuation))
                guard state.inFlight < maximumInFlight else { return nil }
                state.inFlight += 1
                return take(&state)
            }
            if let batch { startTask { await self.drain(batch, flush) } }
        }
    }

    private func take(_ state: inout State) -> [Waiter] {
        let count = min(state.pending.count, maximumBatch)
        let batch = Array(state.pending.prefix(count))
        state.pending.removeFirst(count)
        return batch
    }

    /// Sends `batch`, answers its waiters, then keeps sending what queued meanwhile until nothing is left.
    private func drain(_ first: [Waiter], _ flush: Flush) async {
        var batch = first
        while true {
            let decisions = await flush(batch.map { ($0.key, $0.expiresAt) }, batch.map(\.now).max() ?? 0)
            for (index, waiter) in batch.enumerated() {
                waiter.continuation.resume(returning: index < decisions.count ? decisions[index] : .unavailable(reason: "no decision"))
            }
            let next = state.withLock { state -> [Waiter]? in
                guard !state.pending.isEmpty else {
                    state.inFlight -= 1
                    return nil
                }
                return take(&state)
            }
            guard let next else { return }
            batch = next
        }
    }
}
