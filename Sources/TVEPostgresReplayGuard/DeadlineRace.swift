import NIOCore
import TVECrypto

/// The first of a statement's result, its deadline and its caller's cancellation: resumes the caller once, then cancels
/// the other two (the statement's task when it lost, the timer when it won).
final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished = false
        var task: Task<Void, Never>?
        var timer: Scheduled<Void>?
    }

    private let state = Locked(State())

    /// The caller's continuation, given before the statement starts.
    func start(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// The statement's task and timer, once they exist; cancelled at once when the race is already over.
    func attach(task: Task<Void, Never>, timer: Scheduled<Void>) {
        let finished = state.withLock { state -> Bool in
            if !state.finished {
                state.task = task
                state.timer = timer
            }
            return state.finished
        }
        if finished {
            timer.cancel()
            task.cancel()
        }
    }

    /// Ends the race with `result` unless it has ended already.
    func finish(_ result: Result<T, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Scheduled<Void>?)? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { (state.continuation, state.task, state.timer) = (nil, nil, nil) }
            return (state.continuation, state.task, state.timer)
        }
        guard let (continuation, task, timer) = taken else { return }
        timer?.cancel()
        if case .failure = result { task?.cancel() }
        continuation?.resume(with: result)
    }
}
