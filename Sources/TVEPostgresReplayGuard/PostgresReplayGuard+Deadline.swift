import NIOCore
import NIOPosix

extension PostgresReplayGuard {
    /// Runs `body`, or throws ``ReplayStoreError`` `.unavailable` after `deadline` (the store's timeout by default)
    /// whether or not the body has returned: a statement the database never answers (a lock held for ever, a frozen
    /// server, a client without `statement_timeout`) does not hold the verification, which fails closed. The body is
    /// then cancelled and left to end on its own (postgres-nio gives its connection back when the database answers or
    /// the connection dies).
    func withDeadline<T: Sendable>(
        _ deadline: Duration? = nil, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let deadline = deadline ?? configuration.timeout
        // The statement runs as a task that inherits the caller's executor preference (a verification server's event
        // loop), and the deadline is a timer on the caller's event loop: no sleeping child task, whose wake-up would
        // cross to another thread on every statement.
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? timerGroup.any()
        let (seconds, attoseconds) = deadline.components
        let race = DeadlineRace<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard race.start(continuation) else { return }  // cancelled before it began
                let task = startTask {
                    do {
                        race.finish(.success(try await body()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = loop.scheduleTask(in: .nanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)) {
                    race.finish(
                        .failure(ReplayStoreError(.unavailable, "the database did not answer within \(Self.milliseconds(deadline)) ms")))
                }
                race.attach(task: task, timer: timer)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }
}
