import NIOCore
import TVECrypto

/// The first of a statement's result, its deadline and its caller's cancellation: resumes the caller once, then cancels
/// the other two (the statement's task when it lost, the timer when it won).
final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        /// The outcome, once the race is over (kept for a caller whose continuation comes after it: a caller cancelled
        /// before it started).
        var outcome: Result<T, any Error>?
        var task: Task<Void, Never>?
        var timer: Scheduled<Void>?
    }

    private let state = Locked(State())

    /// The caller's continuation, given before the statement starts. Returns false when the race is already over (the
    /// caller was cancelled first): the continuation has then been resumed with that outcome, and nothing is to start.
    func start(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let outcome = state.withLock { state -> Result<T, any Error>? in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        guard let outcome else { return true }
        continuation.resume(with: outcome)
        return false
    }

    /// The statement's task and timer, once they exist; cancelled at once when the race is already over.
    func attach(task: Task<Void, Never>, timer: Scheduled<Void>) {
        let over = state.withLock { state -> Bool in
            if state.outcome == nil {
                state.task = task
                state.timer = timer
            }
            return state.outcome != nil
        }
        if over {
            timer.cancel()
            task.cancel()
        }
    }

    /// Ends the race with `result` unless it has ended already.
    func finish(_ result: Result<T, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Scheduled<Void>?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            defer { (state.continuation, state.task, state.timer) = (nil, nil, nil) }
            return (state.continuation, state.task, state.timer)
        }
        guard let (continuation, task, timer) = taken else { return }
        timer?.cancel()
        if case .failure = result { task?.cancel() }
        continuation?.resume(with: result)
    }
}
