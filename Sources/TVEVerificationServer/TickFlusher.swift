import NIOCore
import TVEConcurrency

/// Flushes, once per event-loop tick, the connections of one event loop that wrote answers during the tick: one task
/// on the loop per tick for all of them, instead of one per connection (each a closure to allocate and a lock to take
/// in the loop's task queue). The answers of one tick then leave back to back, so that a client's thread woken by the
/// first finds the others already there (one wake-up per tick instead of one per answer, which on loopback costs as
/// much as the answer itself).
///
/// Used only on its event loop (`@unchecked Sendable` so that the server's shared settings can hand it to that loop's
/// connections): ``TickFlushers`` gives each loop its own.
final class TickFlusher: @unchecked Sendable {
    private let loop: any EventLoop
    /// The connections to flush at the end of this tick, each once.
    private var due: [(VerificationHTTPHandler, ChannelHandlerContext)] = []

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Flushes `handler`'s connection at the end of the tick (the handler asks once per tick).
    func flushAtEndOfTick(_ handler: VerificationHTTPHandler, context: ChannelHandlerContext) {
        loop.assertInEventLoop()
        if due.isEmpty { loop.assumeIsolated().execute { self.flushDue() } }
        due.append((handler, context))
    }

    private func flushDue() {
        var index = 0
        while index < due.count {  // a flush may add none, but read `count` each time anyway
            let (handler, context) = due[index]
            handler.flushScheduledForTick(context: context)
            index += 1
        }
        due.removeAll(keepingCapacity: true)
    }
}

/// One ``TickFlusher`` per event loop, made when the loop's first connection is accepted.
final class TickFlushers: Sendable {
    private let flushers = Locked<[ObjectIdentifier: TickFlusher]>([:])

    /// The flusher of `loop`.
    func flusher(for loop: any EventLoop) -> TickFlusher {
        flushers.withLock { flushers in
            if let flusher = flushers[ObjectIdentifier(loop)] { return flusher }
            let flusher = TickFlusher(loop: loop)
            flushers[ObjectIdentifier(loop)] = flusher
            return flusher
        }
    }
}
