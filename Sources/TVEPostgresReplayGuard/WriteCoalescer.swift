import TVEConcurrency
import TVETokens

/// Gathers concurrent checks into shared statements: while `maximumInFlight` statements are out, new keys wait and
/// leave together in the next one (about `maximumBatch` keys at most: a request's keys are never split), so that under
/// load the database commits once per group rather than once per request, with nothing held back when it is idle. A
/// single token and a batch of 64 coalesce alike. A check waits in line at most `maximumWait` (the store's timeout; then
/// it is answered unavailable without being sent), and its statement is bounded by the timeout too: a check takes at
/// most about twice the store's timeout, however long the line behind a stuck database grows.
final class WriteCoalescer: Sendable {
    typealias Keys = [(key: TokenReplayKey, expiresAt: Int64)]
    typealias Flush = @Sendable (Keys, Int64) async -> [ReplayDecision]

    /// One request's keys and the continuation that takes their decisions (in the same order).
    private struct Waiter {
        let keys: Keys
        let now: Int64
        /// When the check has waited in line long enough.
        let due: ContinuousClock.Instant
        let continuation: CheckedContinuation<[ReplayDecision], Never>

        func resume(unavailable reason: String) {
            continuation.resume(returning: Array(repeating: .unavailable(reason: reason), count: keys.count))
        }
    }

    private struct State {
        var pending: [Waiter] = []
        var inFlight = 0
    }

    private let state = Locked(State())
    private let maximumInFlight: Int
    private let maximumBatch: Int
    private let maximumWait: Duration

    init(maximumInFlight: Int, maximumBatch: Int, maximumWait: Duration) {
        self.maximumInFlight = max(1, maximumInFlight)
        self.maximumBatch = max(1, maximumBatch)
        self.maximumWait = maximumWait
    }

    /// Decides `keys` (in order) in the next statement `flush` sends: the statement of whoever finds a free slot.
    func submit(_ keys: Keys, now: Int64, flush: @escaping Flush) async -> [ReplayDecision] {
        guard !keys.isEmpty else { return [] }
        let due = ContinuousClock.now + maximumWait
        return await withCheckedContinuation { continuation in
            let batch = state.withLock { state -> [Waiter]? in
                state.pending.append(Waiter(keys: keys, now: now, due: due, continuation: continuation))
                guard state.inFlight < maximumInFlight else { return nil }
                state.inFlight += 1
                return take(&state).batch
            }
            if let batch { startTask { await self.drain(batch, flush) } }
        }
    }

    /// The waiters of the next statement (the first in line, then as many more as fit in `maximumBatch` keys), and those
    /// that waited too long (to answer unavailable, outside the lock).
    private func take(_ state: inout State) -> (batch: [Waiter], expired: [Waiter]) {
        let now = ContinuousClock.now
        var expired: [Waiter] = []
        if let first = state.pending.first, first.due <= now {
            expired = state.pending.filter { $0.due <= now }
            state.pending.removeAll { $0.due <= now }
        }
        var count = 0
        var keys = 0
        for waiter in state.pending {
            guard count == 0 || keys + waiter.keys.count <= maximumBatch else { break }
            count += 1
            keys += waiter.keys.count
        }
        let batch = Array(state.pending.prefix(count))
        state.pending.removeFirst(count)
        return (batch, expired)
    }

    /// Sends `batch`; when it is decided, starts the statement of what queued meanwhile (before answering, so that the
    /// database works on the next group while this one's answers are written), then answers its waiters.
    private func drain(_ batch: [Waiter], _ flush: @escaping Flush) async {
        let keys = batch.count == 1 ? batch[0].keys : batch.flatMap(\.keys)
        // The statement's `now` is the earliest of its checks': a record is taken as expired only when it is for all of
        // them (a check's later clock never turns another's replay into a first use).
        let decisions = await flush(keys, batch.map(\.now).min() ?? 0)
        let (next, expired) = state.withLock { state -> ([Waiter]?, [Waiter]) in
            let (next, expired) = take(&state)
            guard !next.isEmpty else {
                state.inFlight -= 1
                return (nil, expired)
            }
            return (next, expired)
        }
        if let next { startTask { await self.drain(next, flush) } }
        for waiter in expired { waiter.resume(unavailable: "the check waited for the database longer than the store's timeout") }
        var offset = 0
        for waiter in batch {
            let end = offset + waiter.keys.count
            if decisions.count == keys.count {
                waiter.continuation.resume(returning: Array(decisions[offset..<end]))
            } else {
                // A store that answers once for the whole statement (it failed): that answer for every key.
                let one = decisions.first ?? .unavailable(reason: "no decision")
                waiter.continuation.resume(returning: Array(repeating: one, count: waiter.keys.count))
            }
            offset = end
        }
    }
}
