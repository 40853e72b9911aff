import NIOCore
import NIOPosix

/// An event loop as a Swift task executor, so that the tasks the guard starts (a statement under its deadline, a
/// coalesced flush) run on the event loop of the request that started them, as the request itself does on a
/// verification server: unstructured tasks do not inherit their creator's executor preference.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor of the event loop this thread runs, if it runs one.
    static var current: LoopExecutor? {
        MultiThreadedEventLoopGroup.currentEventLoop.map { LoopExecutor($0) }
    }
}

/// Starts `operation` as a task on the current thread's event loop when there is one, else on the global executor.
func startTask<Success: Sendable>(_ operation: sending @escaping @isolated(any) () async throws -> Success) -> Task<Success, any Error> {
    if let executor = LoopExecutor.current { return Task(executorPreference: executor, operation: operation) }
    return Task(operation: operation)
}

/// As ``startTask(_:)`` for work that does not throw.
@discardableResult
func startTask(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    if let executor = LoopExecutor.current { return Task(executorPreference: executor, operation: operation) }
    return Task(operation: operation)
}
