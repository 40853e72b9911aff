import NIOCore
import NIOPosix
import TVEConcurrency

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
        // The statement runs as a task on the caller's event loop (a verification server's), and the deadline is a timer
        // on that loop: no sleeping child task, whose wake-up would cross to another thread on every statement.
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        let loop = current ?? timerGroup.any()
        return try await TVEConcurrency.withDeadline(
            executor: current.map(LoopTaskExecutor.init),
            arm: { fire in
                let timer = loop.scheduleTask(in: TimeAmount(deadline), fire)
                return { timer.cancel() }
            },
            timedOut: { ReplayStoreError(.unavailable, "the database did not answer within \(Self.milliseconds(deadline)) ms") },
            body)
    }
}
