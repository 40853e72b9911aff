/// A serial executor of jobs (an event loop) as a Swift task executor: the jobs of a task that prefers it run where the
/// loop runs them. It knows the loop only as its `execute` function, so that this module needs no SwiftNIO; a NIO
/// user makes one with `LoopTaskExecutor { loop.execute($0) }`.
///
/// The verification server runs a request that waits for an asynchronous replay store on its connection's event loop
/// this way, and the PostgreSQL replay guard its statements and coalesced flushes (unstructured tasks do not inherit
/// their creator's executor preference).
package final class LoopTaskExecutor: TaskExecutor {
    /// Runs a closure on the loop, soon, in order.
    package typealias Execute = @Sendable (@escaping @Sendable () -> Void) -> Void

    private let execute: Execute

    /// An executor whose jobs `execute` runs.
    package init(_ execute: @escaping Execute) { self.execute = execute }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Starts `operation` as a task that prefers `executor` when there is one, else on the global executor.
package func startTask<Success: Sendable>(
    on executor: LoopTaskExecutor?, _ operation: sending @escaping @isolated(any) () async throws -> Success
) -> Task<Success, any Error> {
    if let executor { return Task(executorPreference: executor, operation: operation) }
    return Task(operation: operation)
}

/// As the throwing `startTask(on:_:)`, for work that does not throw.
@discardableResult
package func startTask(on executor: LoopTaskExecutor?, _ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never>
{
    if let executor { return Task(executorPreference: executor, operation: operation) }
    return Task(operation: operation)
}
