import TVEConcurrency
import TVECrypto

/// Runs operations one at a time, in the order their callers reached ``run(ifCancelled:_:)``.
///
/// The flow layer's mutating operations (those that read the stored tokens, wait on the network and write them back)
/// go through one queue, so that none saves a copy another has made stale; an actor alone does not give this, since
/// it is reentrant at every `await`.
///
/// - The operation runs on the caller's isolation (`nonisolated(nonsending)`): an actor's operation keeps the actor's
///   state, and the queue holds no actor of its own.
/// - A caller whose task is cancelled before its turn stops waiting at once, its operation never starts, and `run`
///   throws the `ifCancelled` error; the callers behind it move up. Once an operation has started, cancelling it is
///   its own business (the queue is released when it returns or throws).
/// - The queue is held for the whole operation, network calls included, so an operation must never wait for the user
///   inside it: the platform-SSO flow asks the user (the permission prompt, the provider picker) first and enters the
///   queue only with the answer.
/// - Not reentrant: an operation that calls `run` on its own queue waits for itself.
package final class SerialQueue: Sendable {
    private struct State {
        var busy = false
        var lastID: UInt64 = 0
        /// The callers waiting for their turn, first come first.
        var waiters: [(id: UInt64, turn: CheckedContinuation<Bool, Never>)] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Whether an operation is running.
    package var isBusy: Bool { state.withLock { $0.busy } }

    /// How many callers are waiting for their turn.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Waits for this caller's turn, runs `operation`, then hands the turn to the next caller.
    package nonisolated(nonsending) func run<Value, Failure: Error>(
        ifCancelled cancelled: @autoclosure () -> Failure,
        _ operation: nonisolated(nonsending) () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        guard await enter() else { throw cancelled() }
        defer { leave() }
        return try await operation()
    }

    /// Takes the turn; false when the task was cancelled first (the turn is then not held).
    private nonisolated(nonsending) func enter() async -> Bool {
        if Task.isCancelled { return false }
        let id: UInt64? = state.withLock { state in
            guard state.busy else {
                state.busy = true
                return nil
            }
            state.lastID += 1
            return state.lastID
        }
        guard let id else { return true }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (turn: CheckedContinuation<Bool, Never>) in
                // Decided under the lock: a cancellation either came first (the flag is set before the handler runs)
                // or finds this waiter in the list.
                let now: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    guard state.busy else {
                        state.busy = true
                        return true
                    }
                    state.waiters.append((id, turn))
                    return nil
                }
                if let now { turn.resume(returning: now) }
            }
        } onCancel: {
            let turn = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).turn
            }
            turn?.resume(returning: false)
        }
        // Cancelled after the turn was handed over but before it was taken: pass it on.
        if granted, Task.isCancelled {
            leave()
            return false
        }
        return granted
    }

    /// Hands the turn to the first waiter (the queue stays busy), or frees the queue.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst().turn
        }
        next?.resume(returning: true)
    }
}
