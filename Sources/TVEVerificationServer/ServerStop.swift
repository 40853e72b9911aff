import NIOCore
import TVEConcurrency

/// The server's stop as its connections see it: nil until it begins, then how long a connection busy with a request may
/// still take before it is closed (zero when the stop was a cancellation).
final class ShutdownState: Sendable {
    private let state = Locked<TimeAmount?>(nil)

    /// How long a busy connection may still take, once the stop has begun.
    var grace: TimeAmount? { state.withLock { $0 } }

    /// The stop begins.
    func begin(grace: TimeAmount) { state.withLock { $0 = grace } }
}

/// The answers still being computed in tasks (waiting for a replay store): the stop waits for them after the
/// connections are closed, so that none is left to an event loop its owner then shuts down. No polling: the last one to
/// end resumes the waiters.
final class InFlightAnswers: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func started() { state.withLock { $0.count += 1 } }

    func ended() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no answer is being computed.
    func drained() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.count == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
