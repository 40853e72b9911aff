import NIOCore
import TVECrypto

/// The server's open connections and the answers still being computed, for the graceful stop: each connection is told
/// `ChannelShouldQuiesceEvent` (NIO's HTTP pipeline then closes an idle connection at once, and a busy one once its
/// answer is out); those still open when the deadline passes are closed; a connection accepted once the stop has begun
/// is closed at once. The stop returns when every answer in flight has ended too (each is bounded by the replay store's
/// timeout), so that none is left to an event loop its owner then shuts down.
final class ConnectionTracker: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var quiescing = false
        var tasksInFlight = 0
    }

    private let state = Locked(State())

    func track(_ channel: any Channel) throws {
        let id = ObjectIdentifier(channel)
        let refused = state.withLock { state -> Bool in
            guard !state.quiescing else { return true }
            state.channels[id] = channel
            return false
        }
        if refused {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in self?.state.withLock { _ = $0.channels.removeValue(forKey: id) } }
    }

    func taskStarted() { state.withLock { $0.tasksInFlight += 1 } }
    func taskEnded() { state.withLock { $0.tasksInFlight -= 1 } }

    /// Quiesces every open connection and waits (up to `deadline`) until they are closed, then for the answers in flight
    /// (up to `deadline` more). A cancelled wait closes everything at once.
    func quiesce(within deadline: Duration) async {
        let open = state.withLock { state -> [any Channel] in
            state.quiescing = true
            return Array(state.channels.values)
        }
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        await wait(until: ContinuousClock.now + deadline) { $0.channels.isEmpty }
        for channel in state.withLock({ Array($0.channels.values) }) { try? await channel.close() }
        await wait(until: ContinuousClock.now + deadline) { $0.tasksInFlight == 0 }
    }

    private func wait(until end: ContinuousClock.Instant, _ done: @Sendable (State) -> Bool) async {
        while ContinuousClock.now < end, !state.withLock({ done($0) }) {
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                return  // cancelled: no more waiting
            }
        }
    }
}
