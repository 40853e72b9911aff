/// Runs `body` as a task (preferring `executor`) and returns what it returns, unless its deadline comes first (then
/// throws `timedOut()`) or the caller is cancelled first (then throws `CancellationError`): whichever of the three comes
/// first resumes the caller, once, and the others are cancelled (the body's task when it lost, the timer when it won).
/// The body that lost is left to end on its own.
///
/// The deadline is a timer the caller arms (`arm` gets the function to call when it fires and returns the function that
/// cancels it): an event loop's `scheduleTask`, so that no sleeping child task wakes up on another thread.
package func withDeadline<T: Sendable>(
    executor: LoopTaskExecutor?,
    arm: (_ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void),
    timedOut: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            guard race.start(continuation) else { return }  // cancelled before it began
            let task = startTask(on: executor) {
                do {
                    race.finish(.success(try await body()))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let cancelTimer = arm { race.finish(.failure(timedOut())) }
            race.attach(task: task, cancelTimer: cancelTimer)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of a body's result, its deadline and its caller's cancellation: resumes the caller once, then cancels the
/// other two (the body's task when it lost, the timer when it won).
final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        /// The outcome, once the race is over (kept for a caller whose continuation comes after it: a caller cancelled
        /// before it started).
        var outcome: Result<T, any Error>?
        var task: Task<Void, Never>?
        var cancelTimer: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// The caller's continuation, given before the body starts. Returns false when the race is already over (the caller
    /// was cancelled first): the continuation has then been resumed with that outcome, and nothing is to start.
    func start(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let outcome = state.withLock { state -> Result<T, any Error>? in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        guard let outcome else { return true }
        continuation.resume(with: outcome)
        return false
    }

    /// The body's task and the timer's cancellation, once they exist; both cancelled at once when the race is already
    /// over.
    func attach(task: Task<Void, Never>, cancelTimer: @escaping @Sendable () -> Void) {
        let over = state.withLock { state -> Bool in
            if state.outcome == nil {
                state.task = task
                state.cancelTimer = cancelTimer
            }
            return state.outcome != nil
        }
        if over {
            cancelTimer()
            task.cancel()
        }
    }

    /// Ends the race with `result` unless it has ended already.
    func finish(_ result: Result<T, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, (@Sendable () -> Void)?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            defer { (state.continuation, state.task, state.cancelTimer) = (nil, nil, nil) }
            return (state.continuation, state.task, state.cancelTimer)
        }
        guard let (continuation, task, cancelTimer) = taken else { return }
        cancelTimer?()
        if case .failure = result { task?.cancel() }
        continuation?.resume(with: result)
    }
}
