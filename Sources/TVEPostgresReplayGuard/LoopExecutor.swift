import NIOCore
import NIOPosix
import TVEConcurrency

extension LoopTaskExecutor {
    /// An event loop as a task executor (its jobs run on the loop's thread).
    convenience init(_ loop: any EventLoop) { self.init { loop.execute($0) } }
}

/// Starts `operation` as a task on the current thread's event loop when there is one (so that the tasks the guard
/// starts, a coalesced flush, run on the event loop of the request that started them), else on the global executor.
@discardableResult
func startTask(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    startTask(on: MultiThreadedEventLoopGroup.currentEventLoop.map(LoopTaskExecutor.init), operation)
}
