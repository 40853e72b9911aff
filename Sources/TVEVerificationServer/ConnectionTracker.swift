import NIOCore
import TVECrypto

/// The server's open connections, to quiesce them on shutdown: each is told `ChannelShouldQuiesceEvent` (NIO's HTTP
/// pipeline then closes an idle connection at once, and a busy one once its answer is out); those still open when the
/// deadline passes are closed.
final class ConnectionTracker: Sendable {
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])

    func track(_ channel: any Channel) throws {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in self?.channels.withLock { _ = $0.removeValue(forKey: id) } }
    }

    /// Quiesces every open connection and waits (up to `deadline`) until they are closed.
    func quiesce(within deadline: Duration) async {
        let open = channels.withLock { Array($0.values) }
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end, !channels.withLock({ $0.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for channel in channels.withLock({ Array($0.values) }) { try? await channel.close() }
    }
}
